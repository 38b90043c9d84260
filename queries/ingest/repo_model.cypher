// Which version of kg's graph model a repository was last written with (null: before versions were recorded).
:param repo => 'shop';
MATCH (r:Repo {name: $repo})
RETURN r.model AS model;
