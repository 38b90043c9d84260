// One turn of a run: the tool call and its result, the LLM call behind it with its token ledger (counted
// segments and reported usage), linked to the run and to the planned file the turn was working on.
:param run => 'run-20260101-120000-ab12';
:param plan => 'calc-1a2b3c4d';
:param turn => {key: 'run-20260101-120000-ab12:1', n: 1, tool: 'write_file', args: '{"path": "calc/ops.py"}', ok: true, result: 'wrote calc/ops.py', target: 'calc/ops.py', degradation: 'none', seconds: 1.2, llm_seconds: 0.9};
:param call => {id: 'run-20260101-120000-ab12:1:0', purpose: 'turn', model: 'replay', seg_system: 300, seg_plan: 120, seg_knowledge: 400, seg_references: 0, seg_decisions: 0, seg_tool_result: 30, seg_tools: 500, prompt_counted: 1350, prompt_tokens: 1380, completion_tokens: 80, cached_tokens: 300, total_tokens: 1460, overhead: 30, degradation: 'none', seconds: 0.9};
MATCH (r:Run {id: $run})
MERGE (t:Turn {key: $turn.key})
SET t += $turn, t.run = $run, t.at = datetime()
MERGE (r)-[:HAS_TURN]->(t)
WITH r, t
OPTIONAL MATCH (f:PlannedFile {key: $plan + ':' + $turn.target})
FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | MERGE (t)-[:WORKED_ON]->(f))
WITH r, t
FOREACH (c IN CASE WHEN $call IS NULL THEN [] ELSE [$call] END |
  MERGE (l:LLMCall {id: c.id})
  SET l += c, l.run = $run, l.turn = t.n
  MERGE (t)-[:MADE]->(l)
  MERGE (r)-[:HAS_CALL]->(l));
