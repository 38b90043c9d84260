// Which modules of a repository mean nearly what this text means? The nearest neighbours of the text's embedding
// in the vector index `module_embedding` (cosine; all-MiniLM-L6-v2), best first. The index holds every
// repository: $candidates nearest are fetched, then filtered to $repo.
:param repo => 'tinyshop';
:param vector => [x IN range(1, 384) | 0.05];
:param limit => 50;
:param candidates => 150;
CALL db.index.vector.queryNodes('module_embedding', $candidates, $vector) YIELD node, score
WHERE node.repo = $repo
RETURN node.path AS path, node.qname AS qname, score
ORDER BY score DESC
LIMIT $limit;
