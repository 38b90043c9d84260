// The token ledger per turn of a run: reported usage, counted prompt, the tool called, the file worked on and
// whether the context was degraded to fit the budget.
:param run => 'run-20260101-120000-ab12';
MATCH (:Run {id: $run})-[:HAS_TURN]->(t:Turn)-[:MADE]->(l:LLMCall)
RETURN t.n AS turn, t.tool AS tool, t.target AS file, t.degradation AS degradation, count(l) AS calls,
       sum(l.prompt_counted) AS prompt_counted, sum(l.prompt_tokens) AS prompt_tokens,
       sum(l.completion_tokens) AS completion_tokens, sum(l.cached_tokens) AS cached_tokens,
       sum(l.seg_knowledge) AS knowledge
ORDER BY turn;
