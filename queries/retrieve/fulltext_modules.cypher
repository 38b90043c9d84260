// Which files of a repository share the most telling words with this text? Lucene (BM25) over each file's words
// (identifiers split, stemmed; index `module_words`), best first.
:param repo => 'tinyshop';
:param query => 'discount cart total';
:param limit => 50;
CALL db.index.fulltext.queryNodes('module_words', $query, {limit: $limit * 5}) YIELD node, score
WHERE node.repo = $repo
RETURN node.path AS path, score
ORDER BY score DESC
LIMIT $limit;
