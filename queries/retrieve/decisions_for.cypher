// Which active decisions are about these files (or symbols in them)? Newest first.
:param repo => 'tinyshop';
:param paths => ['shop/cart.py'];
:param limit => 8;
MATCH (d:Decision)-[:ABOUT]->(n)
WHERE n.repo = $repo AND n.path IN $paths AND coalesce(d.status, 'active') = 'active'
WITH DISTINCT d, collect(DISTINCT n.path) AS about
RETURN d.id AS id, d.text AS text, d.rationale AS rationale, d.confidence AS confidence, about
ORDER BY d.valid_from DESC
LIMIT $limit;
