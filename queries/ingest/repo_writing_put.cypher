// Mark a repository as being written by a write that is not one transaction (a bulk ingest): the mark stays until
// that write's last step (repo_model_put) clears it, so a run that dies half way leaves a repository that answers
// say is incomplete (queries/repo_unfinished.cypher). $model and $parser: the graph model and parsing code the write
// marks files with (repo_model_put's), null when it rewrites a repository written by other ones (an upgrade): files
// an interrupted write marked are trusted by the next run only when they are known to be this kg's.
:param repo => 'flask';
:param model => 2;
:param parser => '0123456789abcdef';
MATCH (r:Repo {name: $repo})
SET r.writing = datetime(), r.writing_model = $model, r.writing_parser = $parser
REMOVE r.writing_step;
