// Which observed nodes are stale? The targets of COVERS and observed CALLS whose file's content hash is no longer
// the one recorded when they were observed (or whose file is gone), with the own-text hash recorded then.
:param repo => 'flask';
MATCH (:ObservedTest|TestScope {repo: $repo})-[c:COVERS]->(n)
OPTIONAL MATCH (m:Module {repo: $repo, path: n.path})
WITH n, c WHERE m IS NULL OR m.hash <> c.hash
RETURN DISTINCT n.key AS key, n.path AS path, c.text AS text
UNION
MATCH (a)-[r:CALLS {resolution: 'observed'}]->(b)
WHERE a.repo = $repo
UNWIND [[a, r.source_hash, r.source_text], [b, r.target_hash, r.target_text]] AS end
WITH end[0] AS n, end[1] AS hash, end[2] AS text
OPTIONAL MATCH (m:Module {repo: $repo, path: n.path})
WITH n, text WHERE m IS NULL OR m.hash <> hash
RETURN DISTINCT n.key AS key, n.path AS path, text;
