// Whether the graph holds any symbol of a repository: with no Module or Document of it either, a first ingest has
// nothing to clear and writes its nodes while it resolves (ingest.pipeline).
:param repo => 'flask';
MATCH (s:Symbol {repo: $repo})
RETURN s.key AS key
LIMIT 1;
