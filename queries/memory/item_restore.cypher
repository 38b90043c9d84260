// Put back an item exported to `.agent-memory/` that the graph lacks (a fresh clone, a wiped graph) as it was:
// same id, version, author and timestamps, and ABOUT edges carrying the hashes recorded then, for the targets
// that exist (the others stay in `about`: the audit reports them orphaned).
:param label => 'Decision';
:param props => {id: 'dec-0123456789ab', repo: 'tinyshop', text: 'Checkout never mutates the cart', rationale: '', status: 'confirmed', confidence: 1.0, author: 'Jane Doe', source: 'cli', version: 1, about: ['shop/cart.py'], pending: [], plan: null};
:param created_at => '2026-01-01T09:00:00Z';
:param updated_at => '2026-01-01T09:00:00Z';
:param targets => [{key: 'tinyshop:shop/cart.py', label: 'Module', ref: 'shop/cart.py', hash: '0123456789abcdef0123456789abcdef'}];
MERGE (d:$($label) {id: $props.id})
SET d += $props, d.created_at = datetime($created_at), d.updated_at = datetime($updated_at)
WITH d
CALL (d) {
  UNWIND $targets AS row
  CALL (row) {
    MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
    UNION
    MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
    UNION
    MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
  }
  MERGE (d)-[a:ABOUT {ref: row.ref}]->(t)
  SET a.hash = row.hash, a.at = d.created_at
}
CALL (d) {
  MATCH (p:Plan {id: d.plan})
  MERGE (p)-[:HAS_DECISION]->(d)
}
RETURN d.id AS id;
