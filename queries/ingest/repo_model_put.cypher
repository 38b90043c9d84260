// Record the graph model version a repository's files were written with; the last write of an ingest, so a run that
// dies half way leaves the old version and the next ingest rewrites the repository again.
:param repo => 'shop';
:param model => 2;
MATCH (r:Repo {name: $repo})
SET r.model = $model;
