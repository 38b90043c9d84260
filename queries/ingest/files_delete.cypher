// Delete files that are gone from the tree: their module, symbols, document and chunks, and every edge touching them.
:param repo => 'flask';
:param rows => [{path: 'src/flask/old.py'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Symbol {repo: $repo, path: row.path})
  USING INDEX s:Symbol(repo, path)
  DETACH DELETE s
}
CALL (row) {
  MATCH (m:Module {repo: $repo, path: row.path})
  USING INDEX m:Module(repo, path)
  DETACH DELETE m
}
CALL (row) {
  MATCH (d:Document {repo: $repo, path: row.path})
  USING INDEX d:Document(repo, path)
  OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  DETACH DELETE d, c
};
