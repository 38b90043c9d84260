// Forget the embeddings of nodes that are no longer embedded (a test file, by the current rule), so a repository
// stepped through many ingests holds the same vectors as one ingested fresh: a stale vector would still rank.
:param keys => ['tinyshop:tests.test_cart.test_checkout'];
UNWIND $keys AS key
OPTIONAL MATCH (s:Symbol {key: key})
OPTIONAL MATCH (m:Module {key: key})
WITH coalesce(s, m) AS n
WHERE n IS NOT NULL AND n.embedding IS NOT NULL
REMOVE n.embedding, n.embed_key;
