// edges_internal_put's CALLS for a repository the graph holds nothing of yet (a first ingest): CREATE with a static
// type, rows made distinct by (source, target, line) in kg.ingest.writer (the last row's properties, as MERGE then
// SET leaves them).
:param rows => [{source_module: null, source_symbol: 'flask:flask.app.Flask.run', target_module: null, target_symbol: 'flask:flask.cli.show_server_banner', line: 620, resolution: 'import', confidence: 1.0, through: null, type_only: null}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
OPTIONAL MATCH (tm:Module {qkey: row.target_module})
OPTIONAL MATCH (ts:Symbol {key: row.target_symbol})
WITH row, coalesce(ss, sm) AS src, coalesce(ts, tm) AS dst
WHERE src IS NOT NULL AND dst IS NOT NULL
CREATE (src)-[r:CALLS {line: row.line}]->(dst)
SET r.resolution = row.resolution, r.confidence = row.confidence, r.through = row.through,
    r.type_only = row.type_only;
