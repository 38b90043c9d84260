// The last write for a file: its content hash, which tells the next ingest that the file is complete in the graph.
:param repo => 'flask';
:param rows => [{path: 'src/flask/app.py', hash: '0123abcd'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (m:Module {repo: $repo, path: row.path})
  USING INDEX m:Module(repo, path)
  SET m.hash = row.hash
}
CALL (row) {
  MATCH (d:Document {repo: $repo, path: row.path})
  USING INDEX d:Document(repo, path)
  SET d.hash = row.hash
};
