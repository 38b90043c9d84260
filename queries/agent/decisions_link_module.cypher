// When a planned file is written, the decisions of its plan that name it become ABOUT its new Module too.
:param plan => 'calc-1a2b3c4d';
:param repo => 'calc';
:param path => 'calc/ops.py';
MATCH (:Plan {id: $plan})-[:HAS_DECISION]->(d:Decision)
WHERE $path IN d.paths
MATCH (m:Module {repo: $repo, path: $path})
MERGE (d)-[:ABOUT]->(m);
