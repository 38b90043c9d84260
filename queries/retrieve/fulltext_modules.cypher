// Which files of a repository share the most telling words with this text? Lucene (BM25) over each file's words
// (identifiers split, stemmed; index `module_words`), best first. The index holds every
// repository: $candidates best are fetched, then filtered to $repo.
:param repo => 'tinyshop';
:param query => 'discount cart total';
:param limit => 50;
:param candidates => 250;
CALL db.index.fulltext.queryNodes('module_words', $query, {limit: $candidates}) YIELD node, score
WHERE node.repo = $repo
RETURN node.path AS path, score
ORDER BY score DESC
LIMIT $limit;
