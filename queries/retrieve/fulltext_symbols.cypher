// Which symbols of a repository match this text? Lucene over each symbol's words (its name and owner split,
// parameters, docstring start; index `symbol_words`), best first. The index holds every
// repository: $candidates best are fetched, then filtered to $repo.
:param repo => 'tinyshop';
:param query => 'discount cart total';
:param limit => 100;
:param candidates => 500;
CALL db.index.fulltext.queryNodes('symbol_words', $query, {limit: $candidates}) YIELD node, score
WHERE node.repo = $repo
RETURN node.path AS path, node.qname AS qname, node.kind AS kind, node.start_line AS line, score
ORDER BY score DESC
LIMIT $limit;
