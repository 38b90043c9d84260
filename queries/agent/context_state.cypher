// The first half of a turn's context: the plan, every planned file with whether it is done (planned minus
// implemented: a Module or Document of the target repo at that path that parses, or a written file kg does not
// parse, but not one of the $parsed kinds an ignore file keeps out of the graph; the same rule as plan_progress),
// and the run's last turn (its result is the next prompt's tool_result). One round trip.
:param plan => 'calc-1a2b3c4d';
:param repo => 'calc';
:param run => 'run-20260101-120000-ab12';
:param parsed => ['.py', '.js', '.ts', '.go'];
MATCH (p:Plan {id: $plan})
CALL (p) {
  MATCH (p)-[:HAS_FILE]->(f:PlannedFile)
  OPTIONAL MATCH (m:Module {repo: $repo, path: f.path})
  OPTIONAL MATCH (d:Document {repo: $repo, path: f.path})
  WITH f, coalesce(m.syntax_errors, 0) = 0 AND d.error IS NULL
          AND (m IS NOT NULL OR d IS NOT NULL
               OR (f.status = 'written' AND NOT any(s IN $parsed WHERE toLower(f.path) ENDS WITH s))) AS done
  ORDER BY f.ordinal
  RETURN collect({path: f.path, description: f.description, uses: f.uses, done: done}) AS files
}
CALL () {
  OPTIONAL MATCH (:Run {id: $run})-[:HAS_TURN]->(t:Turn)
  WITH t ORDER BY t.n DESC LIMIT 1
  RETURN collect(t {.n, .tool, .args, .ok, .result, .target}) AS last
}
RETURN p {.id, .title, .goal} AS plan, files, last;
