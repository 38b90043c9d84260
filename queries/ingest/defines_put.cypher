// (:Module|Symbol)-[:DEFINES]->(:Symbol): a module defines its top-level symbols, a class its methods, a function
// its nested functions.
:param rows => [{child: 'flask:flask.app.Flask', parent_module: 'flask:src/flask/app.py', parent_symbol: null}];
UNWIND $rows AS row
MATCH (c:Symbol {key: row.child})
OPTIONAL MATCH (pm:Module {key: row.parent_module})
OPTIONAL MATCH (ps:Symbol {key: row.parent_symbol})
WITH c, coalesce(ps, pm) AS p
WHERE p IS NOT NULL
MERGE (p)-[:DEFINES]->(c);
