// The second half of a turn's context, for the next file: the modules its seeds (files it uses, done files that
// use it) import or call, a card for each seed and neighbour (stored summary, public symbols with signatures,
// imports, how often it is called or imported) and reference material related to it. One round trip.
// (Project memory about these modules comes from queries/memory/, see agent/memory.py.)
:param repo => 'calc';
:param plan => 'calc-1a2b3c4d';
:param next => 'calc/cli.py';
:param seeds => ['calc/parser.py'];
:param max_neighbours => 12;
:param max_symbols => 24;
:param max_methods => 6;
:param max_references => 4;
CALL () {
  UNWIND $seeds AS path
  CALL (path) {
    MATCH (:Module {repo: $repo, path: path})-[:IMPORTS|CALLS]->(t)
    RETURN t
    UNION ALL
    MATCH (:Symbol {repo: $repo, path: path})-[:IMPORTS|CALLS]->(t)
    RETURN t
  }
  WITH t
  WHERE t.repo = $repo AND t.path IS NOT NULL AND NOT t.path IN $seeds AND t.path <> $next
  WITH t.path AS path, count(*) AS links
  ORDER BY links DESC, path
  RETURN collect({path: path, links: links})[..$max_neighbours] AS neighbours
}
WITH neighbours, $seeds + [n IN neighbours | n.path] AS paths
CALL (paths) {
  UNWIND paths AS path
  MATCH (m:Module {repo: $repo, path: path})
  WITH m, path IN $seeds AS direct  // the second ring is shown one line each: names, no signatures
  CALL (m, direct) {
    OPTIONAL MATCH (m)-[:DEFINES]->(top:Symbol)
    WHERE top.kind <> 'variable' AND NOT top.name STARTS WITH '_'
    WITH top ORDER BY top.start_line
    CALL (top, direct) {
      OPTIONAL MATCH (top)-[:DEFINES]->(method:Method)
      WHERE direct AND (NOT method.name STARTS WITH '_' OR method.name = '__init__')
      WITH method ORDER BY method.start_line
      RETURN collect(method)[..$max_methods] AS methods
    }
    UNWIND [top] + methods AS s
    WITH s WHERE s IS NOT NULL
    WITH collect(CASE WHEN direct
                 THEN s {.qname, .name, .kind, .signature, doc: split(coalesce(s.doc, ''), '\n')[0]}
                 ELSE s {.name, .kind} END) AS all
    RETURN all[..(CASE WHEN direct THEN $max_symbols ELSE 8 END)] AS symbols
  }
  CALL (m, direct) {
    OPTIONAL MATCH (m)-[:IMPORTS]->(t)
    WHERE direct
    RETURN collect(DISTINCT coalesce(t.qname, t.name))[..16] AS imports
  }
  CALL (m) {
    // incoming calls and imports, read from the degree store (no filter on the edges, so no edge is visited)
    OPTIONAL MATCH (m)-[:DEFINES]->(s:Symbol)
    WITH sum(COUNT { (s)<-[:CALLS|IMPORTS]-() }) AS to_symbols
    RETURN to_symbols + COUNT { (m)<-[:IMPORTS]-() } AS callers
  }
  RETURN collect({path: m.path, qname: m.qname, summary: m.summary, interface: m.summary_interface,
                  dependencies: m.summary_dependencies, notes: m.summary_notes, summary_kind: m.summary_kind,
                  symbols: symbols, imports: imports, callers: callers}) AS cards
}
CALL () {
  // INFORMS edges (kg relate) first, then the older RELATES_TO ones
  OPTIONAL MATCH (m:Module)-[r:INFORMS|RELATES_TO]->(:PlannedFile {key: $plan + ':' + $next})
  WITH m, r ORDER BY type(r) = 'INFORMS' DESC, r.confidence DESC, m.path
  RETURN collect(CASE WHEN m IS NULL THEN null ELSE {repo: m.repo, path: m.path, type: r.type,
                  confidence: r.confidence, helpful_aspects: coalesce(r.aspects, r.helpful_aspects),
                  usage_suggestions: coalesce(r.suggestion, r.usage_suggestions),
                  summary: m.summary} END)[..$max_references] AS references
}
RETURN neighbours, cards, references;
