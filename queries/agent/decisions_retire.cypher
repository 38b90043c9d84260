// A new run of a plan starts fresh: the decisions earlier runs of it proposed and nobody confirmed stop applying
// (a resumed run keeps its own; confirmed decisions are the project's memory and stay). They stay in the graph as
// history, `superseded` by the new run, and no prompt shows them again.
:param plan => 'calc-1a2b3c4d';
:param run => 'run-20260101-120000-ab12';
MATCH (:Plan {id: $plan})-[:HAS_DECISION]->(d:Decision)
WHERE d.status = 'proposed' AND d.source = 'agent' AND coalesce(d.run, '') <> $run
SET d.status = 'superseded', d.superseded_by_run = $run, d.updated_at = datetime(), d.version = d.version + 1;
