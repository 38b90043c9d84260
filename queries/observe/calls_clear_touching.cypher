// Delete the observed CALLS into or out of these nodes (symbols whose code changed, before a re-run observes them).
:param rows => [{key: 'flask:flask.app.Flask.wsgi_app'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Symbol {key: row.key})-[r:CALLS {resolution: 'observed'}]-()
  DELETE r
}
CALL (row) {
  MATCH (n:Module {key: row.key})-[r:CALLS {resolution: 'observed'}]-()
  DELETE r
};
