// Delete the symbols a file no longer defines, with every edge that pointed at them (no ghosts).
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py', keys: ['flask:flask.app.Flask']}];
UNWIND $rows AS row
MATCH (s:Symbol {repo: $repo, path: row.path})
USING INDEX s:Symbol(repo, path)
WHERE NOT s.key IN row.keys
DETACH DELETE s;
