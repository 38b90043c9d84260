// Record what the agent did to planned files: `written` (on disk; for files kg does not parse this is what makes
// them done), `planned` (missing again), with the turn that wrote them.
:param plan => 'calc-1a2b3c4d';
:param rows => [{path: 'calc/ops.py', status: 'written', turn: 3}];
UNWIND $rows AS row
MATCH (f:PlannedFile {key: $plan + ':' + row.path})
SET f.status = row.status, f.done_turn = row.turn;
