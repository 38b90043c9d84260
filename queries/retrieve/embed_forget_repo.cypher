// Forget a repository's embeddings (its symbols and modules embed again on the next sync); for benchmarks and
// for starting over after a change of embedded text.
:param repo => 'tinyshop';
MATCH (n)
WHERE (n:Symbol OR n:Module) AND n.repo = $repo AND n.embedding IS NOT NULL
CALL (n) {
  REMOVE n.embedding, n.embed_key
} IN TRANSACTIONS OF 5000 ROWS;
