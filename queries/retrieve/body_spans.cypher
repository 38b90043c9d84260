// Where are the functions, methods and classes of these files? Their lines, for the bodies signal to read their
// source from the repository's files.
:param repo => 'tinyshop';
:param paths => ['shop/cart.py'];
UNWIND $paths AS path
MATCH (s:Symbol {repo: $repo, path: path})
WHERE s.kind IN ['function', 'method', 'class']
RETURN s.path AS path, s.qname AS qname, s.kind AS kind, s.start_line AS line, s.end_line AS end_line;
