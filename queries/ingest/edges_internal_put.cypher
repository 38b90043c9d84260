// CALLS / IMPORTS / INHERITS between nodes of the repository, one relationship per source line, with how the
// target was found (resolution) and how sure kg is (confidence); `through`: the decorator's wrapper a call of a
// decorated function goes through to reach it (null for a direct call); `type_only`: an import made under
// `if TYPE_CHECKING:` (null otherwise).
// A row is one (type, source, target) pair with its edges keyed by line (kg.ingest.writer folds repeated lines).
// files_clear has removed the sources' old edges, so the pair's edges are CREATEd; the few a clear cannot reach (a
// symbol another file of the module defines too) are met by line and updated, as a MERGE per line would. The pair's
// relationships are read once, not once per line: 20,000 calls from one function to another cost 20,000, not 20,000².
:param rows => [{type: 'CALLS', source_module: null, source_symbol: 'flask:flask.app.Flask.run', target_module: null, target_symbol: 'flask:flask.cli.show_server_banner', edges: {`620`: {line: 620, resolution: 'import', confidence: 1.0, through: null, type_only: null}}}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
OPTIONAL MATCH (tm:Module {qkey: row.target_module})
OPTIONAL MATCH (ts:Symbol {key: row.target_symbol})
WITH row, coalesce(ss, sm) AS src, coalesce(ts, tm) AS dst
WHERE src IS NOT NULL AND dst IS NOT NULL
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
