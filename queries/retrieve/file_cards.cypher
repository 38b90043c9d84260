// What is in these files? For each: its dotted name, size, the summary the agent stored (if any), its top-level
// classes and functions (with a class's public methods) in order, with signature, first docstring line and lines.
:param repo => 'tinyshop';
:param paths => ['shop/cart.py'];
:param max_symbols => 30;
UNWIND $paths AS path
MATCH (m:Module {repo: $repo, path: path})
CALL (m) {
  OPTIONAL MATCH (m)-[:DEFINES]->(top:Symbol)
  WHERE top.kind <> 'variable'
  WITH top ORDER BY top.start_line
  CALL (top) {
    OPTIONAL MATCH (top)-[:DEFINES]->(method:Method)
    WHERE NOT method.name STARTS WITH '_' OR method.name = '__init__'
    WITH method ORDER BY method.start_line
    RETURN collect(method)[..12] AS methods
  }
  UNWIND [top] + methods AS s
  WITH s WHERE s IS NOT NULL
  RETURN collect(s {.qname, .name, .kind, .signature, .start_line, .end_line,
                    doc: split(coalesce(s.doc, ''), '\n')[0]})[..$max_symbols] AS symbols
}
RETURN m.path AS path, m.qname AS qname, m.loc AS loc, m.summary AS summary, m.summary_kind AS summary_kind,
       m.summary_notes AS notes, symbols;
