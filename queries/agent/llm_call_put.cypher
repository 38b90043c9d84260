// An LLM call that is not a turn's own (a file summary with --summaries llm), in the run's ledger.
:param run => 'run-20260101-120000-ab12';
:param turn => 'run-20260101-120000-ab12:1';
:param call => {id: 'run-20260101-120000-ab12:1:1', purpose: 'summary', model: 'replay', seg_system: 50, seg_file: 400, prompt_counted: 450, prompt_tokens: 470, completion_tokens: 60, cached_tokens: 0, total_tokens: 530, overhead: 20, degradation: 'none', seconds: 0.4};
MATCH (r:Run {id: $run})
MERGE (l:LLMCall {id: $call.id})
SET l += $call, l.run = $run
MERGE (r)-[:HAS_CALL]->(l)
WITH l
OPTIONAL MATCH (t:Turn {key: $turn})
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | MERGE (t)-[:MADE]->(l));
