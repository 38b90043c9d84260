// Create or update a run's state: status, counters, guards, the last step's result. Props are merged, so a
// partial update (one turn's counters) leaves the rest as it was.
:param id => 'run-20260101-120000-ab12';
:param plan => 'calc-1a2b3c4d';
:param props => {status: 'running', iterations: 0, done: 0, total: 3};
MERGE (r:Run {id: $id})
ON CREATE SET r.started_at = datetime()
SET r += $props, r.updated_at = datetime()
WITH r
MATCH (p:Plan {id: $plan})
MERGE (r)-[:FOLLOWS]->(p);
