// The signatures (tool + arguments) and outcomes of a run's last turns, newest first: the loop detector's memory,
// so a resumed run picks up a repeating pattern where the crashed one left it.
:param run => 'run-20260101-120000-ab12';
:param limit => 10;
MATCH (:Run {id: $run})-[:HAS_TURN]->(t:Turn)
RETURN t.n AS n, t.tool AS tool, t.args AS args, t.ok AS ok
ORDER BY t.n DESC
LIMIT $limit;
