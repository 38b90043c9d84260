// When a planned file is written, the decisions an agent recorded about it before it existed become ABOUT its new
// module (or document), with its hash now: the file was written knowing them.
:param plan => 'calc-1a2b3c4d';
:param repo => 'calc';
:param path => 'calc/ops.py';
MATCH (:Plan {id: $plan})-[:HAS_DECISION]->(d:Decision)
WHERE $path IN coalesce(d.pending, [])
CALL () {
  MATCH (t:Module {repo: $repo, path: $path}) RETURN t
  UNION
  MATCH (t:Document {repo: $repo, path: $path}) RETURN t
}
MERGE (d)-[a:ABOUT {ref: $path}]->(t)
SET a.hash = t.hash, a.at = datetime(),
    d.about = [r IN coalesce(d.about, []) WHERE r <> $path] + [$path],
    d.pending = [p IN d.pending WHERE p <> $path];
