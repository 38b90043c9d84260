// Before recording a decision: each target's current hash and memory version (the version the write will carry),
// and the active decisions the new one must be compared with: about any of the same targets, pending on the same
// planned files of the plan, or (a decision about nothing in particular) the plan's other plan-wide decisions.
:param rows => [{key: 'tinyshop:shop/cart.py', label: 'Module', ref: 'shop/cart.py'}];
:param plan => null;
:param pending => [];
CALL () {
  UNWIND $rows AS row
  CALL (row) {
    MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
    UNION
    MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
    UNION
    MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
  }
  RETURN collect({key: row.key, hash: t.hash, version: coalesce(t.memory_version, 0)}) AS targets
}
CALL () {
  CALL () {
    UNWIND $rows AS row
    MATCH (d:Decision)-[:ABOUT]->(t)
    WHERE t.key = row.key AND (t:Module OR t:Symbol OR t:Document)
    RETURN d
    UNION
    MATCH (d:Decision {plan: $plan})
    WHERE any(p IN coalesce(d.pending, []) WHERE p IN $pending)
       OR (size($rows) = 0 AND size($pending) = 0 AND size(coalesce(d.about, [])) = 0
           AND size(coalesce(d.pending, [])) = 0)
    RETURN d
  }
  WITH d
  WHERE d.status IN ['proposed', 'confirmed']
  RETURN collect(d {.id, .text, .status}) AS decisions
}
RETURN targets, decisions;
