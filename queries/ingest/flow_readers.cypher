// Files of a repository whose edges read one of the given argument flows (see flow_reads_put): after a change to
// what reaches those parameters, they are resolved again.
:param repo => 'flask';
:param keys => ['flask.app.Flask.wsgi_app#environ'];
MATCH (m:Module {repo: $repo})
WHERE any(read IN coalesce(m.flow_reads, []) WHERE read IN $keys)
RETURN m.path AS path;
