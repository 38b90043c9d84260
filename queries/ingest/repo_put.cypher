// Create or update a repository: role is `target` (code being built or reviewed) or `reference`.
:param repo => 'flask';
:param root => '/src/flask';
:param role => 'target';
MERGE (r:Repo {name: $repo})
SET r.root = $root, r.role = $role, r.ingested_at = datetime();
