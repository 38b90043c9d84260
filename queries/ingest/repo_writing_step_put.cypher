// Record what a bulk write marked as being written (repo_writing_put) is writing now: `nodes` (modules, symbols),
// `edges` (calls, imports, inheritance, module dependencies; code files are marked complete at its end) or
// `documents`. A run that dies leaves the step, so answers can say what may be missing (kg.unfinished).
:param repo => 'flask';
:param step => 'documents';
MATCH (r:Repo {name: $repo})
WHERE r.writing IS NOT NULL
SET r.writing_step = $step;
