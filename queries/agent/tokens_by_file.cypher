// The token ledger per planned file: every LLM call made while the run worked on that file. $run null: every run.
:param run => null;
MATCH (t:Turn)-[:MADE]->(l:LLMCall)
WHERE $run IS NULL OR t.run = $run
OPTIONAL MATCH (t)-[:WORKED_ON]->(f:PlannedFile)
RETURN coalesce(f.path, '(no file)') AS file, count(DISTINCT t) AS turns, count(l) AS calls,
       sum(l.prompt_tokens) AS prompt_tokens, sum(l.completion_tokens) AS completion_tokens,
       sum(l.cached_tokens) AS cached_tokens
ORDER BY prompt_tokens DESC;
