// Planned minus implemented: every planned file and whether it is done. A file is done when the graph holds it
// (a Module or Document of the target repo at that path) or when the agent wrote a file kg does not parse.
:param plan => 'calc-1a2b3c4d';
:param repo => 'calc';
MATCH (:Plan {id: $plan})-[:HAS_FILE]->(f:PlannedFile)
OPTIONAL MATCH (m:Module {repo: $repo, path: f.path})
OPTIONAL MATCH (d:Document {repo: $repo, path: f.path})
RETURN f.path AS path, f.description AS description, f.uses AS uses, f.ordinal AS ordinal,
       (m IS NOT NULL OR d IS NOT NULL OR f.status = 'written') AS done, f.done_turn AS done_turn
ORDER BY f.ordinal;
