// Which symbols look like this text? A fuzzy search over names, dotted names and docstrings through the full-text
// index `symbol_text` (Lucene syntax: `checkout`, `check*`, `chekout~`, `"order store"`, `name:*netrc*`), best
// matches first. `kg find` builds such a query from a plain name and ranks the candidates itself.
:params {search: 'checkout', repo: null, limit: 20};
CALL db.index.fulltext.queryNodes('symbol_text', $search, {limit: 1000}) YIELD node, score
WHERE $repo IS NULL OR node.repo = $repo
RETURN node.repo AS repo, node.qname AS qname, node.kind AS kind, node.path AS path, node.start_line AS line,
       node.signature AS signature, round(score, 3) AS score, node.doc AS doc
ORDER BY score DESC, qname
LIMIT toInteger($limit);
