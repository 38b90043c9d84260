// edges_external_put's IMPORTS for a repository the graph holds nothing of yet (a first ingest): the External node is
// still MERGEd (other repositories share it), the relationship CREATEd with a static type, rows made distinct by
// (source, target, line) in kg.ingest.writer; target_kind is the first row's for that target, as ON CREATE kept it.
:param rows => [{source_module: null, source_symbol: 'flask:flask.app.Flask.run', target: 'os.environ.get', target_kind: 'external', line: 600, resolution: 'import', confidence: 1.0, through: null, type_only: null}];
UNWIND $rows AS row
OPTIONAL MATCH (sm:Module {key: row.source_module})
OPTIONAL MATCH (ss:Symbol {key: row.source_symbol})
WITH row, coalesce(ss, sm) AS src
WHERE src IS NOT NULL
MERGE (dst:External {name: row.target})
ON CREATE SET dst.kind = row.target_kind
CREATE (src)-[r:IMPORTS {line: row.line}]->(dst)
SET r.resolution = row.resolution, r.confidence = row.confidence, r.through = row.through,
    r.type_only = row.type_only;
