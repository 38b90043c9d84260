// Delete every memory item of a repository with its revisions (`kg forget` keeps memory: people wrote it; this is
// for throwaway repositories such as benchmarks).
:param repo => 'bench-memory';
CALL () {
  MATCH (d:Decision {repo: $repo}) RETURN d
  UNION
  MATCH (d:Knowledge {repo: $repo}) RETURN d
}
OPTIONAL MATCH (d)-[:REVISED]->(r:Revision)
DETACH DELETE d, r;
