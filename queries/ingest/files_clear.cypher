// Remove the outgoing CALLS/IMPORTS/INHERITS of some files' modules and symbols, and the External nodes
// that nothing points at any more. The first step of rewriting or deleting a file.
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Module {repo: $repo, path: row.path})-[r:CALLS|IMPORTS|INHERITS]->(t)
  DELETE r
  WITH DISTINCT t
  WHERE t:External AND NOT EXISTS { ()-->(t) }
  DELETE t
}
CALL (row) {
  MATCH (n:Symbol {repo: $repo, path: row.path})-[r:CALLS|IMPORTS|INHERITS]->(t)
  DELETE r
  WITH DISTINCT t
  WHERE t:External AND NOT EXISTS { ()-->(t) }
  DELETE t
};
