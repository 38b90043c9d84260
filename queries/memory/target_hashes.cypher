// The content hash the graph holds now for some memory targets, given by key and label (Module, Symbol, Document).
:param rows => [{key: 'tinyshop:shop/cart.py', label: 'Module', ref: 'shop/cart.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
  UNION
  MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
  UNION
  MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
}
RETURN row.key AS key, row.ref AS ref, t.hash AS hash, coalesce(t.memory_version, 0) AS version;
