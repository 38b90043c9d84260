// Mark a repository as being written by a write that is not one transaction (a bulk ingest): the mark stays until
// that write's last step (repo_model_put) clears it, so a run that dies half way leaves a repository that answers
// say is incomplete (queries/repo_unfinished.cypher).
:param repo => 'flask';
MATCH (r:Repo {name: $repo})
SET r.writing = datetime();
