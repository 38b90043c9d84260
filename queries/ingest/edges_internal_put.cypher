// CALLS / IMPORTS / INHERITS between nodes of the repository, one relationship per source line, with how the
// target was found (resolution) and how sure kg is (confidence); `through`: the decorator's wrapper a call of a
// decorated function goes through to reach it (null for a direct call); `type_only`: an import made under
// `if TYPE_CHECKING:` (null otherwise).
:param rows => [{type: 'CALLS', source_module: null, source_symbol: 'flask:flask.app.Flask.run', target_module: null, target_symbol: 'flask:flask.cli.show_server_banner', line: 620, resolution: 'import', confidence: 1.0, through: null, type_only: null}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
OPTIONAL MATCH (tm:Module {qkey: row.target_module})
OPTIONAL MATCH (ts:Symbol {key: row.target_symbol})
WITH row, coalesce(ss, sm) AS src, coalesce(ts, tm) AS dst
WHERE src IS NOT NULL AND dst IS NOT NULL
MERGE (src)-[r:$(row.type) {line: row.line}]->(dst)
SET r.resolution = row.resolution, r.confidence = row.confidence, r.through = row.through,
    r.type_only = row.type_only;
