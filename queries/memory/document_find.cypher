// Which document has this path? (A memory item can be about a README or a config file as well as code.)
:param path => 'README.md';
:param repo => null;
MATCH (d:Document {path: $path})
WHERE $repo IS NULL OR d.repo = $repo
RETURN d.repo AS repo, d.path AS path, d.hash AS hash
ORDER BY repo;
