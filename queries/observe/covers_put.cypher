// Replace the COVERS of tests and scopes: (:Test|TestScope)-[:COVERS]->(:Symbol|Module) for what ran during a test
// (or a scope), with how often it was entered, the content hash of the target's file then (`hash`) and a hash of
// the target's own text then (`text`). A holder's earlier COVERS go first.
:param rows => [{holder: 'flask:tests/test_basic.py::test_options_work', symbols: [{key: 'flask:flask.app.Flask.wsgi_app', count: 1, hash: '0123abcd', text: '89ab'}], modules: [{key: 'flask:src/flask/app.py', count: 1, hash: '0123abcd', text: 'cdef'}]}];
UNWIND $rows AS row
CALL (row) {
  MATCH (h:Test {key: row.holder}) RETURN h
  UNION
  MATCH (h:TestScope {key: row.holder}) RETURN h
}
CALL (h) {
  MATCH (h)-[c:COVERS]->()
  DELETE c
}
CALL (h, row) {
  UNWIND row.symbols AS t
  MATCH (n:Symbol {key: t.key})
  CREATE (h)-[:COVERS {count: t.count, hash: t.hash, text: t.text}]->(n)
}
CALL (h, row) {
  UNWIND row.modules AS t
  MATCH (n:Module {key: t.key})
  CREATE (h)-[:COVERS {count: t.count, hash: t.hash, text: t.text}]->(n)
};
