// Replace the COVERS of tests and scopes: (:ObservedTest|TestScope)-[:COVERS]->(:Symbol|Module) for what ran during a test
// (or a scope), with how often it was entered, the content hash of the target's file then (`hash`) and a hash of
// the target's own text then (`text`). With $replace a holder's earlier COVERS all go first (a test that ran
// again); without it only those to the targets written now (a scope seen by a partial run: imports by the test
// files it did not collect still count).
:param replace => true;
:param rows => [{holder: 'flask:tests/test_basic.py::test_options_work', symbols: [{key: 'flask:flask.app.Flask.wsgi_app', count: 1, hash: '0123abcd', text: '89ab'}], modules: [{key: 'flask:src/flask/app.py', count: 1, hash: '0123abcd', text: 'cdef'}]}];
UNWIND $rows AS row
CALL (row) {
  MATCH (h:ObservedTest {key: row.holder}) RETURN h
  UNION
  MATCH (h:TestScope {key: row.holder}) RETURN h
}
CALL (h, row) {
  WITH h, row WHERE $replace
  MATCH (h)-[c:COVERS]->()
  DELETE c
}
CALL (h, row) {
  WITH h, row WHERE NOT $replace
  UNWIND row.symbols + row.modules AS t
  MATCH (h)-[c:COVERS]->(n)
  WHERE n.key = t.key
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
