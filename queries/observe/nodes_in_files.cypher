// What does the graph hold for these files? Each file's module (with the content hash the graph last stored) and
// every symbol defined in it with its line range: what `kg observe` maps traced code objects onto.
:param repo => 'flask';
:param paths => ['src/flask/app.py'];
UNWIND $paths AS path
MATCH (m:Module {repo: $repo, path: path})
RETURN m.path AS path, m.key AS key, m.qname AS qname, 'module' AS kind, m.qname AS name, 1 AS start_line,
       m.loc AS end_line, m.hash AS hash
UNION ALL
UNWIND $paths AS path
MATCH (s:Symbol {repo: $repo, path: path})
RETURN s.path AS path, s.key AS key, s.qname AS qname, s.kind AS kind, s.name AS name, s.start_line AS start_line,
       s.end_line AS end_line, null AS hash;
