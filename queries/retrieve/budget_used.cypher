// How many tokens have been spent for this task and today? Context calls (kg context, MCP, agent) of the task,
// and today's context calls plus the LLM calls the agent's ledger recorded today.
:param task => 'task-1a2b3c4d5e6f';
:param day => '2026-12-01';
CALL () {
  OPTIONAL MATCH (c:ContextCall {task: $task})
  RETURN coalesce(sum(c.tokens), 0) AS task
}
CALL () {
  OPTIONAL MATCH (c:ContextCall {day: $day})
  RETURN coalesce(sum(c.tokens), 0) AS contexts
}
CALL () {
  OPTIONAL MATCH (t:Turn)-[:MADE]->(l:LLMCall)
  WHERE date(t.at) = date($day)
  RETURN coalesce(sum(l.total_tokens), 0) AS llm
}
RETURN task, contexts + llm AS day;
