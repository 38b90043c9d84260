// Symbols of one repository matching a full-text query (name, qualified name, docstring), best first.
:param repo => 'calc';
:param query => 'add';
:param limit => 10;
CALL db.index.fulltext.queryNodes('symbol_text', $query) YIELD node, score
WHERE node.repo = $repo
RETURN node.qname AS qname, node.kind AS kind, node.path AS path, node.start_line AS line,
       node.signature AS signature, score
ORDER BY score DESC
LIMIT $limit;
