// How many relationships of each type leave one repository's nodes (`kg status --repo`), its Repo node's included:
// its calls into Externals count, another repository's edges do not.
:param repo => 'tinyshop';
MATCH (n)
WHERE n.repo = $repo OR (n:Repo AND n.name = $repo)
MATCH (n)-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type;
