// The content hash of every file of a repository as the graph last stored it (null: written only in part).
:param repo => 'flask';
MATCH (m:Module {repo: $repo})
RETURN m.path AS path, m.hash AS hash, 'code' AS kind
UNION ALL
MATCH (d:Document {repo: $repo})
RETURN d.path AS path, d.hash AS hash, 'document' AS kind;
