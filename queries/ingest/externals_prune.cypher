// Delete External nodes (packages, builtins, unresolved names) that no edge points at any more.
MATCH (e:External)
WHERE NOT EXISTS { ()-->(e) }
CALL (e) {
  DELETE e
} IN TRANSACTIONS OF 5000 ROWS;
