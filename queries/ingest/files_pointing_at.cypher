// Files of a repository with CALLS/IMPORTS/INHERITS edges into the given files: they must be re-resolved when
// those files change in ways kg cannot compare (no earlier parse) or disappear.
:param repo => 'flask';
:param paths => ['src/flask/helpers.py'];
UNWIND $paths AS path
MATCH (s:Symbol {repo: $repo, path: path})<-[r:CALLS|IMPORTS|INHERITS]-(src)
USING INDEX s:Symbol(repo, path)
WHERE src.path <> path AND coalesce(r.resolution, '') <> 'observed'
RETURN DISTINCT src.path AS path
UNION
UNWIND $paths AS path
MATCH (m:Module {repo: $repo, path: path})<-[r:CALLS|IMPORTS|INHERITS]-(src)
USING INDEX m:Module(repo, path)
WHERE src.path <> path AND coalesce(r.resolution, '') <> 'observed'
RETURN DISTINCT src.path AS path;
