// Remove the DEFINES edges going out of some files' modules and symbols, before they are written again.
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (:Module {repo: $repo, path: row.path})-[r:DEFINES]->()
  DELETE r
}
CALL (row) {
  MATCH (:Symbol {repo: $repo, path: row.path})-[r:DEFINES]->()
  DELETE r
};
