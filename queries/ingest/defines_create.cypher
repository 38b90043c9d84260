// defines_put for a repository the graph holds nothing of yet (a first ingest): CREATE, rows made distinct by
// kg.ingest.writer, so the result is what defines_put's MERGE writes.
:param rows => [{child: 'flask:flask.app.Flask', parent_module: 'flask:src/flask/app.py', parent_symbol: null}];
UNWIND $rows AS row
MATCH (c:Symbol {key: row.child})
OPTIONAL MATCH (pm:Module {key: row.parent_module})
OPTIONAL MATCH (ps:Symbol {key: row.parent_symbol})
WITH c, coalesce(ps, pm) AS p
WHERE p IS NOT NULL
CREATE (p)-[:DEFINES]->(c);
