// Observed evidence about code that did not change: its file changed, but not its own text (another function of the
// file did). Its COVERS and observed CALLS take the file's current hash, so they no longer count as stale.
:param rows => [{key: 'flask:flask.app.Flask.wsgi_app', text: '89ab', hash: '0123abcd'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Symbol {key: row.key}) RETURN n
  UNION
  MATCH (n:Module {key: row.key}) RETURN n
}
CALL (n, row) {
  MATCH ()-[c:COVERS]->(n) WHERE c.text = row.text
  SET c.hash = row.hash
}
CALL (n, row) {
  MATCH (n)-[r:CALLS {resolution: 'observed'}]->() WHERE r.source_text = row.text
  SET r.source_hash = row.hash
}
CALL (n, row) {
  MATCH ()-[r:CALLS {resolution: 'observed'}]->(n) WHERE r.target_text = row.text
  SET r.target_hash = row.hash
};
