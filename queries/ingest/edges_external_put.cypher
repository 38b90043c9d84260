// CALLS / IMPORTS / INHERITS to what lies outside the repository: packages (`requests.get`), builtins
// (`<builtin>.len`) and names kg could not resolve (`<unresolved>.foo`), each an (:External) node.
// A row is one (type, source, target) pair with its edges keyed by line, written as edges_internal_put writes
// them: CREATEd, or met by line and updated when a clear left them; the pair's relationships are read once.
:param rows => [{type: 'CALLS', source_module: null, source_symbol: 'flask:flask.app.Flask.run', target: 'os.environ.get', target_kind: 'external', edges: {`600`: {line: 600, resolution: 'import', confidence: 1.0, through: null, type_only: null}}}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
WITH row, coalesce(ss, sm) AS src
WHERE src IS NOT NULL
MERGE (dst:External {name: row.target})
ON CREATE SET dst.kind = row.target_kind
WITH row, src, dst
CALL (row, src, dst) {
  OPTIONAL MATCH (src)-[old]->(dst)
  WHERE type(old) = row.type AND row.edges[toString(old.line)] IS NOT NULL
  WITH old, row.edges[toString(old.line)] AS e
  SET old.resolution = e.resolution, old.confidence = e.confidence, old.through = e.through,
      old.type_only = e.type_only
  RETURN collect(old.line) AS met
}
UNWIND keys(row.edges) AS line
WITH src, dst, row, row.edges[line] AS e, met
WHERE NOT e.line IN met
CREATE (src)-[r:$(row.type) {line: e.line}]->(dst)
SET r.resolution = e.resolution, r.confidence = e.confidence, r.through = e.through, r.type_only = e.type_only;
