// Delete every node and relationship, in batches so a big graph does not need one huge transaction.
// Used by `kg reset` and by the tests' per-test clean graph. Constraints and indexes stay.
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS;
