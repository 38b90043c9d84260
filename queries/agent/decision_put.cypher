// A design decision the agent recorded: the decision, why, how sure, and the modules or planned files it is about.
:param decision => {id: 'dec-1', text: 'Use Decimal for money', rationale: 'floats round', confidence: 0.8, author: 'agent:run-1', run: 'run-1', plan: 'calc-1a2b3c4d', paths: ['calc/ops.py']};
:param repo => 'calc';
MERGE (d:Decision {id: $decision.id})
SET d += $decision, d.status = 'active', d.version = 1, d.valid_from = datetime()
WITH d
OPTIONAL MATCH (p:Plan {id: $decision.plan})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (p)-[:HAS_DECISION]->(d))
WITH d
UNWIND (CASE WHEN size($decision.paths) = 0 THEN [null] ELSE $decision.paths END) AS path
OPTIONAL MATCH (m:Module {repo: $repo, path: path})
OPTIONAL MATCH (f:PlannedFile {key: $decision.plan + ':' + path})
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END | MERGE (d)-[:ABOUT]->(m))
FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | MERGE (d)-[:ABOUT]->(f));
