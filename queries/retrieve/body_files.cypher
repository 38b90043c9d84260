// Which code files does a repository hold, with their content hashes? The bodies signal re-reads only the files
// whose hash changed since it last indexed them.
:param repo => 'tinyshop';
MATCH (m:Module {repo: $repo})
RETURN m.path AS path, m.hash AS hash;
