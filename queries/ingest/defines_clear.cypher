// Remove the DEFINES edges going out of some files' modules and symbols, before they are written again.
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (m:Module {repo: $repo, path: row.path})-[r:DEFINES]->()
  USING INDEX m:Module(repo, path)
  DELETE r
}
CALL (row) {
  MATCH (s:Symbol {repo: $repo, path: row.path})-[r:DEFINES]->()
  USING INDEX s:Symbol(repo, path)
  DELETE r
};
