// Forget every stored embedding whose size is not the model's (a model change), in batches, so they are made again.
:param dims => 384;
MATCH (n)
WHERE (n:Symbol OR n:Module) AND n.embedding IS NOT NULL AND size(n.embedding) <> $dims
CALL (n) {
  REMOVE n.embedding, n.embed_key
} IN TRANSACTIONS OF 5000 ROWS;
