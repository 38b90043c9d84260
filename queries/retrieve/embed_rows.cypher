// What would be embedded for a repository (or just these files of it), and the key of the vector each node holds
// now: symbols (name, signature, docstring; not variables) and modules (path and top-level names). Document
// chunks are searched by full text only: they are long (slow to embed) and rewritten whole on every edit.
:param repo => 'tinyshop';
:param paths => null;
CALL () {
  MATCH (s:Symbol {repo: $repo})
  WHERE ($paths IS NULL OR s.path IN $paths) AND s.kind <> 'variable'
  RETURN 'Symbol' AS label, s.key AS key, s.qname AS name, s.kind AS kind, s.signature AS signature,
         left(s.doc, 200) AS doc, s.path AS path, s.embed_key AS embed_key
  UNION ALL
  MATCH (m:Module {repo: $repo})
  WHERE $paths IS NULL OR m.path IN $paths
  CALL (m) {
    OPTIONAL MATCH (m)-[:DEFINES]->(t:Symbol)
    WHERE t.kind <> 'variable'
    WITH t ORDER BY t.start_line
    RETURN collect(t.name)[..40] AS names
  }
  RETURN 'Module' AS label, m.key AS key, m.qname AS name, 'module' AS kind, null AS signature,
         reduce(s = '', n IN names | s + ' ' + n) AS doc, m.path AS path, m.embed_key AS embed_key
}
RETURN label, key, name, kind, signature, doc, path, embed_key;
