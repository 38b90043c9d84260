// Planned minus implemented: every planned file and whether it is done. A file is done when the graph holds it
// (a Module or Document of the target repo at that path) and it parses as its language (no syntax errors, no
// parse error of a structured document), or when the agent wrote a file kg does not parse. `problem` says why a
// written file is not done (a garbage file must not count because it exists, nor a file of a kind kg parses that
// an ignore file of the workspace keeps out of the graph). $parsed: the file endings kg parses as code.
:param plan => 'calc-1a2b3c4d';
:param repo => 'calc';
:param parsed => ['.py', '.js', '.ts', '.go'];
MATCH (:Plan {id: $plan})-[:HAS_FILE]->(f:PlannedFile)
OPTIONAL MATCH (m:Module {repo: $repo, path: f.path})
OPTIONAL MATCH (d:Document {repo: $repo, path: f.path})
WITH f, m, d, CASE
    WHEN coalesce(m.syntax_errors, 0) > 0
      THEN 'does not parse as ' + m.lang + ' (' + toString(m.syntax_errors) + ' syntax errors)'
    WHEN d.error IS NOT NULL THEN 'does not parse: ' + d.error
    WHEN m IS NULL AND d IS NULL AND f.status = 'written' AND any(s IN $parsed WHERE toLower(f.path) ENDS WITH s)
      THEN 'was written but not ingested (an ignore file of the workspace, .gitignore or .kgignore, excludes it, '
           + 'or kg skipped it)'
  END AS problem
RETURN f.path AS path, f.description AS description, f.uses AS uses, f.ordinal AS ordinal,
       problem IS NULL AND (m IS NOT NULL OR d IS NOT NULL OR f.status = 'written') AS done,
       f.done_turn AS done_turn, problem
ORDER BY f.ordinal;
