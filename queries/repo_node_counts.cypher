// How many nodes of each label one repository holds (`kg status --repo`): every node kg writes for a repository
// carries its name as `repo`; its Repo node is counted too. Externals (shared by every repository) are not.
:param repo => 'tinyshop';
MATCH (n)
WHERE n.repo = $repo OR (n:Repo AND n.name = $repo)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label;
