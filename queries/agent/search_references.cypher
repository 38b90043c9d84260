// Symbols and document chunks of the repositories ingested with role `reference` matching a full-text query.
:param query => 'retry backoff';
:param limit => 8;
MATCH (r:Repo {role: 'reference'})
WITH collect(r.name) AS repos
CALL db.index.fulltext.queryNodes('symbol_text', $query) YIELD node, score
WHERE node.repo IN repos
RETURN node.repo AS repo, node.path AS path, node.qname AS name, node.signature AS text, score
ORDER BY score DESC
LIMIT $limit
UNION ALL
MATCH (r:Repo {role: 'reference'})
WITH collect(r.name) AS repos
CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node, score
WHERE node.repo IN repos
RETURN node.repo AS repo, node.path AS path, node.heading AS name, left(node.text, 400) AS text, score
ORDER BY score DESC
LIMIT $limit;
