// What did contexts cost, and which were degraded or over budget? Context calls (kg context, MCP, agent) since
// $since (an ISO day), or of one task (an agent run id), with the degradation steps they took and their alerts,
// plus the degradations of the agent's LLM calls (knowledge slot cut to one line, names, …) in the same window.
:param since => '2026-12-01';
:param task => null;
CALL () {
  OPTIONAL MATCH (c:ContextCall)
  WHERE c.day >= $since AND ($task IS NULL OR c.task = $task)
  RETURN count(c) AS calls, coalesce(sum(c.tokens), 0) AS tokens,
         [x IN collect(CASE WHEN size(c.degradation) > 0 THEN c.degradation END) WHERE x IS NOT NULL] AS steps,
         [x IN collect(CASE WHEN size(c.alerts) > 0 THEN {at: c.at, task: c.task, alerts: c.alerts} END)
          WHERE x IS NOT NULL] AS alerted
}
CALL () {
  OPTIONAL MATCH (t:Turn)-[:MADE]->(l:LLMCall)
  WHERE date(t.at) >= date($since) AND ($task IS NULL OR t.run = $task) AND l.degradation <> 'none'
  RETURN collect(l.degradation) AS llm_steps
}
RETURN calls, tokens, steps, alerted[..20] AS alerts, llm_steps;
