// A new run of a plan starts fresh: the decisions earlier runs of it recorded stop applying (a resumed run keeps its
// own). They stay in the graph as history, `superseded` with `invalid_at` and the run that superseded them, and no
// prompt shows them again.
:param plan => 'calc-1a2b3c4d';
:param run => 'run-20260101-120000-ab12';
MATCH (:Plan {id: $plan})-[:HAS_DECISION]->(d:Decision)
WHERE coalesce(d.status, 'active') = 'active' AND coalesce(d.run, '') <> $run
SET d.status = 'superseded', d.invalid_at = datetime(), d.superseded_by = $run;
