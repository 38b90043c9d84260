// Record a new decision, only if no target's memory changed since the caller read it (optimistic concurrency:
// each target's write lock is taken before its memory version is compared, targets in key order so two writers
// never deadlock). Creates the ABOUT edges with each target's hash now, the flagged conflicts, the plan link and
// the links to planned files not written yet. Returns no row when the check failed (the caller reads again).
:param decision => {id: 'dec-0123456789ab', repo: 'tinyshop', text: 'Checkout never mutates the cart', rationale: 'orders are replayed', status: 'confirmed', confidence: 1.0, author: 'Jane Doe', source: 'cli', about: ['shop/cart.py#shop.cart.Cart.checkout'], pending: [], plan: null, run: null};
:param targets => [{key: 'tinyshop:shop.cart.Cart.checkout', label: 'Symbol', ref: 'shop/cart.py#shop.cart.Cart.checkout', version: 0}];
:param conflicts => [];
:param plan => null;
:param pending => [];
CALL () {
  UNWIND $targets AS row
  CALL (row) {
    MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
    UNION
    MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
    UNION
    MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
  }
  WITH row, t ORDER BY row.key
  SET t._memory_lock = true
  WITH row, t, coalesce(t.memory_version, 0) = row.version AS fresh
  REMOVE t._memory_lock
  RETURN collect({t: t, ref: row.ref}) AS found, all(f IN collect(fresh) WHERE f) AS fresh
}
WITH found, fresh
WHERE fresh AND size(found) = size($targets)
WITH found, datetime() AS now
CREATE (d:Decision)
SET d = $decision, d.created_at = now, d.updated_at = now, d.version = 1
WITH d, found
CALL (d, found) {
  UNWIND found AS x
  WITH d, x.t AS t, x.ref AS ref
  SET t.memory_version = coalesce(t.memory_version, 0) + 1
  CREATE (d)-[:ABOUT {ref: ref, hash: t.hash, at: d.created_at}]->(t)
}
CALL (d) {
  UNWIND $conflicts AS c
  MATCH (o:Decision {id: c.id})
  CREATE (d)-[:CONFLICTS_WITH {kind: c.kind, reason: c.reason, score: c.score, detected_at: d.created_at,
                               settled: false}]->(o)
}
CALL (d) {
  MATCH (p:Plan {id: $plan})
  MERGE (p)-[:HAS_DECISION]->(d)
}
CALL (d) {
  UNWIND $pending AS path
  MATCH (f:PlannedFile {key: $plan + ':' + path})
  CREATE (d)-[:ABOUT {ref: path, pending: true, at: d.created_at}]->(f)
}
RETURN d.id AS id, d.status AS status;
