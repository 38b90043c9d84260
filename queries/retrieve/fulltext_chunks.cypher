// Which document chunks (README, docs, config) of a repository match this text? Lucene over `chunk_text`.
:param repo => 'tinyshop';
:param query => 'discount cart total';
:param limit => 10;
CALL db.index.fulltext.queryNodes('chunk_text', $query, {limit: $limit * 5}) YIELD node, score
WHERE node.repo = $repo
RETURN node.path AS path, node.heading AS heading, node.start_line AS line, left(node.text, 600) AS text, score
ORDER BY score DESC
LIMIT $limit;
