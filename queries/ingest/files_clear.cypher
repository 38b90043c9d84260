// Remove the outgoing CALLS/IMPORTS/INHERITS of some files' modules and symbols, and the External nodes
// that nothing points at any more. The first step of rewriting or deleting a file. Observed CALLS (`kg observe`)
// stay: they are not ingest's to remove, and their hashes tell that the file changed since.
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Module {repo: $repo, path: row.path})-[r:CALLS|IMPORTS|INHERITS]->(t)
  USING INDEX n:Module(repo, path)
  WHERE coalesce(r.resolution, '') <> 'observed'
  DELETE r
  WITH DISTINCT t
  WHERE t:External AND NOT EXISTS { ()-->(t) }
  DELETE t
}
CALL (row) {
  MATCH (n:Symbol {repo: $repo, path: row.path})-[r:CALLS|IMPORTS|INHERITS]->(t)
  USING INDEX n:Symbol(repo, path)
  WHERE coalesce(r.resolution, '') <> 'observed'
  DELETE r
  WITH DISTINCT t
  WHERE t:External AND NOT EXISTS { ()-->(t) }
  DELETE t
};
