// Delete the Repo node of a repository whose contents are already gone.
:param repo => 'flask';
MATCH (r:Repo {name: $repo})
DETACH DELETE r;
