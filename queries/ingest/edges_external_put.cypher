// CALLS / IMPORTS / INHERITS to what lies outside the repository: packages (`requests.get`), builtins
// (`<builtin>.len`) and names kg could not resolve (`<unresolved>.foo`), each an (:External) node.
:param rows => [{type: 'CALLS', source_module: null, source_symbol: 'flask:flask.app.Flask.run', target: 'os.environ.get', target_kind: 'external', line: 600, resolution: 'import', confidence: 1.0, through: null, type_only: null}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
WITH row, coalesce(ss, sm) AS src
WHERE src IS NOT NULL
MERGE (dst:External {name: row.target})
ON CREATE SET dst.kind = row.target_kind
MERGE (src)-[r:$(row.type) {line: row.line}]->(dst)
SET r.resolution = row.resolution, r.confidence = row.confidence, r.through = row.through,
    r.type_only = row.type_only;
