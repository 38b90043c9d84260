// The token ledger by prompt segment: counted tokens per segment, what the API reported (prompt, completion,
// cached) and the overhead (reported prompt minus counted segments: chat template framing, tokenizer drift).
// $run null: every run.
:param run => null;
MATCH (l:LLMCall)
WHERE $run IS NULL OR l.run = $run
RETURN count(l) AS calls,
       sum(coalesce(l.seg_system, 0)) AS system, sum(coalesce(l.seg_plan, 0)) AS plan,
       sum(coalesce(l.seg_knowledge, 0)) AS knowledge, sum(coalesce(l.seg_references, 0)) AS references,
       sum(coalesce(l.seg_decisions, 0)) AS decisions, sum(coalesce(l.seg_tool_result, 0)) AS tool_result,
       sum(coalesce(l.seg_tools, 0)) AS tools, sum(coalesce(l.seg_file, 0)) AS file,
       sum(coalesce(l.overhead, 0)) AS overhead,
       sum(coalesce(l.prompt_counted, 0)) AS prompt_counted, sum(coalesce(l.prompt_tokens, 0)) AS prompt_tokens,
       sum(coalesce(l.completion_tokens, 0)) AS completion_tokens, sum(coalesce(l.cached_tokens, 0)) AS cached_tokens,
       sum(coalesce(l.total_tokens, 0)) AS total_tokens;
