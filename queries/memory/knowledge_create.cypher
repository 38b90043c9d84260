// Create a knowledge item (a module's responsibility and the points people get wrong about it) unless one with
// this id exists; its id is derived from its targets and title, so two writers creating the same item at once
// meet on one node and the second one merges into it. Returns whether this call created it.
:param knowledge => {id: 'kn-0123456789ab', repo: 'tinyshop', title: '', responsibility: 'Holds the items of one order until checkout.', pitfalls: ['Prices are in cents.'], status: 'confirmed', confidence: 1.0, author: 'Jane Doe', source: 'cli', about: ['shop/cart.py']};
:param targets => [{key: 'tinyshop:shop/cart.py', label: 'Module', ref: 'shop/cart.py'}];
WITH datetime() AS now
MERGE (k:Knowledge {id: $knowledge.id})
ON CREATE SET k += $knowledge, k.created_at = now, k.updated_at = now, k.version = 1,
              k._created = true
WITH k, coalesce(k._created, false) AS created
REMOVE k._created
WITH k, created
CALL (k, created) {
  WITH k WHERE created
  UNWIND $targets AS row
  CALL (row) {
    MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
    UNION
    MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
    UNION
    MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
  }
  CREATE (k)-[:ABOUT {ref: row.ref, hash: t.hash, at: k.created_at}]->(t)
}
RETURN created, k.version AS version;
