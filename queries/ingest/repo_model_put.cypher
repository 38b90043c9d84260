// Record the graph model version and the parsing code (kg.ingest.cache.parser_fingerprint) a repository's files were
// written with, and clear the mark of a write in progress (repo_put): the last write of an ingest, so a run that dies
// half way leaves the old values and the mark, and the next ingest rewrites what is left.
:param repo => 'shop';
:param model => 2;
:param parser => '0123456789abcdef';
MATCH (r:Repo {name: $repo})
SET r.model = $model, r.parser = $parser
REMOVE r.writing, r.writing_step, r.writing_model, r.writing_parser;
