// `kg callers`, `kg callees` and `kg impact` in one request: the names typed ($symbols) looked up as find_symbol
// does, the current folder's repository preferred ($here: the folder, null when unknown; $repo given: that one
// only), and from the symbols so picked the walk of kg/navigate/reach.py (breadth first, each node once at its
// shortest distance with its strongest chain; ties: the lower line, then the name of the node one step nearer), then
// the first $limit nodes found (null: all) as rows. $question: 'callers' (in along CALLS from the symbol),
// 'callees' (out) or 'impact' (in along $types from each symbol, what it defines and the base methods it
// overrides, as reach/changed).
// One row: `candidates` (per name, find_symbol's rows), `repos` (the `repos` rows when $repo is null),
// `unfinished` (the picked repository's row when its last ingest did not finish: kg.unfinished), `picked`
// (the qname and repo chosen per name, null where this query could not choose), `total` (nodes found) and `found`.
// kg/navigate/answers.py checks the choice against kg.navigate.targets.resolve and raises its errors (unknown or
// ambiguous names); when they disagree it asks again with the resolved names. Why one request: a one-shot CLI
// answer paid ~20–60 ms per round trip for the 4–8 it made (find_symbol, repos, start, each step, rows).
:params {symbols: ['Order.subtotal_cents'], repo: null, here: null, question: 'callers', depth: 1, types: ['CALLS'], min_confidence: 0.0, evidence: 'all', limit: 50};
UNWIND range(0, size($symbols) - 1) AS i
CALL (i) {
  WITH $symbols[i] AS text
  MATCH (s:Symbol {name: last(split(text, '.'))})
  WHERE (s.qname = text OR s.qname ENDS WITH '.' + text) AND ($repo IS NULL OR s.repo = $repo)
  RETURN s.repo AS repo, s.qname AS qname, s.kind AS kind, s.path AS path, s.start_line AS line,
         s.end_line AS end_line, s AS node
  UNION
  WITH $symbols[i] AS text
  MATCH (m:Module)
  WHERE (m.qname = text OR m.path = text OR m.qname ENDS WITH '.' + text) AND ($repo IS NULL OR m.repo = $repo)
  RETURN m.repo AS repo, m.qname AS qname, 'module' AS kind, m.path AS path, 1 AS line, m.loc AS end_line, m AS node
}
WITH i, repo, qname, kind, path, line, end_line, node ORDER BY i, repo, qname
WITH i, collect({repo: repo, qname: qname, kind: kind, path: path, line: line, end_line: end_line, node: node})[..100]
     AS found
WITH collect({i: i, found: found}) AS per_name
// the current folder's repository: the innermost whose root holds $here (as kg.navigate.targets.repo_at)
WITH per_name, COLLECT { MATCH (r:Repo) RETURN {repo: r.name, root: r.root, writing: toString(r.writing),
                                                  writing_step: r.writing_step}
                      ORDER BY r.name } AS repos
WITH per_name, repos, [r IN repos WHERE $repo IS NULL AND $here IS NOT NULL AND r.root IS NOT NULL
       AND ($here = r.root OR $here STARTS WITH r.root + CASE WHEN r.root ENDS WITH '/' THEN '' ELSE '/' END)]
     AS holding
WITH per_name, repos, reduce(longest = -1, r IN holding | CASE WHEN size(r.root) > longest THEN size(r.root)
       ELSE longest END) AS longest, holding
WITH per_name, repos, [r IN holding WHERE size(r.root) = longest] AS innermost
WITH per_name, repos, CASE WHEN size(innermost) = 1 THEN innermost[0].repo END AS here_repo
UNWIND range(0, size($symbols) - 1) AS i
WITH per_name, repos, here_repo, i, $symbols[i] AS text,
     coalesce(head([p IN per_name WHERE p.i = i | p.found]), []) AS found
WITH per_name, repos, here_repo, i, text, found, [c IN found WHERE c.qname = text OR c.path = text] AS exact
WITH per_name, repos, here_repo, i, found, CASE WHEN size(exact) > 0 THEN exact ELSE found END AS candidates
WITH per_name, repos, here_repo, i, found,
     coalesce(nullif([c IN candidates WHERE c.repo = here_repo], []), candidates) AS candidates
WITH per_name, repos, here_repo, i, found, candidates, [c IN candidates WHERE c.kind <> 'module'] AS symbols
WITH per_name, repos, here_repo, i, found,
     CASE WHEN size(candidates) = 1 THEN candidates[0]
          WHEN size(symbols) = 1 AND all(c IN candidates WHERE c.qname = symbols[0].qname) THEN symbols[0] END AS pick
ORDER BY i
WITH repos, collect([c IN found | c {.repo, .qname, .kind, .path, .line, .end_line}]) AS candidates,
     collect(pick) AS picks
WITH repos, candidates, picks,
     size(picks) = size($symbols) AND size(reduce(rs = [], p IN picks | CASE WHEN p.repo IN rs THEN rs
       ELSE rs + p.repo END)) = 1 AS chosen
WITH repos, candidates, picks, CASE WHEN chosen THEN picks[0].repo END AS repo,
     CASE WHEN chosen THEN [p IN picks | p.node] ELSE [] END AS roots
// where the walk starts: the symbol itself (callers, callees), or everything that changes with it (impact)
WITH repos, candidates, picks, repo,
     CASE WHEN $question <> 'impact' THEN [r IN roots WHERE r:Symbol]
          ELSE COLLECT {
            UNWIND roots AS root
            MATCH (root)-[:DEFINES]->{0,4}(changed)
            RETURN changed
            UNION
            UNWIND roots AS root
            MATCH (root)-[:DEFINES]->{0,4}(changed)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)
                  -[:DEFINES]->(overridden:Method)
            WHERE overridden.name = changed.name
            RETURN overridden AS changed
          } END AS starts
// one layer per step (as reach/step, then the choice reach.walk makes for each node not met before)
WITH repos, candidates, picks, repo,
     reduce(layers = [[s IN starts | {node: s, name: coalesce(s.qname, s.name, ''), weakest: 1.0, types: [],
                                      reaches: coalesce(s.qname, s.name, ''), observed: 0, stale: false}]],
            step IN range(1, $depth) |
       CASE WHEN size(last(layers)) = 0 THEN layers ELSE layers + [COLLECT {
         // every chain one edge longer, grouped by the node it reaches, its best first (no aggregation is allowed
         // inside reduce: the first of each group is kept by position)
         WITH COLLECT {
           WITH reduce(seen = [], layer IN layers | seen + [x IN layer | x.node]) AS seen
           UNWIND last(layers) AS f
           WITH seen, f, f.node AS node
           MATCH (node)-[r:CALLS|IMPORTS|INHERITS]-(next)
           WHERE (startNode(r) = node) = ($question = 'callees') AND type(r) IN $types
             AND r.confidence >= $min_confidence
             AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed')) AND NOT next IN seen
           WITH f, r, next, r.resolution = 'observed' AS observed
           WITH f, r, next, observed,
                observed AND (EXISTS { MATCH (m:Module {repo: repo, path: startNode(r).path})
                                       WHERE m.hash <> r.source_hash }
                              OR EXISTS { MATCH (m:Module {repo: repo, path: endNode(r).path})
                                          WHERE m.hash <> r.target_hash }) AS stale
           RETURN {node: next, name: coalesce(next.qname, next.name, ''), depth: step, via: f.node,
                   via_name: f.name, edge: r, line: r.line,
                   weakest: CASE WHEN r.confidence < f.weakest THEN r.confidence ELSE f.weakest END,
                   types: f.types + [type(r)], reaches: f.reaches,
                   observed: f.observed + CASE WHEN observed THEN 1 ELSE 0 END, stale: f.stale OR stale} AS chain
           ORDER BY elementId(next), chain.weakest DESC, chain.line IS NULL, chain.line, chain.via_name
         } AS chains
         UNWIND range(0, size(chains) - 1) AS c
         WITH chains[c] AS best, c = 0 OR chains[c].node <> chains[c - 1].node AS first
         WHERE first
         RETURN best ORDER BY best.weakest DESC, best.name
       }] END) AS layers
WITH repos, candidates, picks, repo, reduce(found = [], layer IN layers[1..] | found + layer) AS found
RETURN CASE WHEN $repo IS NULL THEN repos END AS repos, candidates,
       [r IN repos WHERE r.repo = repo AND r.writing IS NOT NULL][0] AS unfinished,
       [p IN picks | p {.repo, .qname}] AS picks, size(found) AS total,
       [f IN CASE WHEN $limit IS NULL THEN found ELSE found[..$limit] END | {
         depth: f.depth, name: coalesce(f.node.qname, f.node.name), qname: f.node.qname, kind: f.node.kind,
         external: 'External' IN labels(f.node),
         path: f.node.path, start_line: f.node.start_line, via: f.via.qname, via_path: f.via.path, line: f.line,
         weakest: f.weakest, types: f.types, reaches: f.reaches, observed: f.observed, stale: f.stale,
         resolution: CASE WHEN f.edge.resolution <> 'observed' THEN f.edge.resolution
           ELSE 'observed' + CASE f.edge.via WHEN 'library' THEN ' via library' ELSE '' END
             + CASE WHEN EXISTS { MATCH (m:Module {repo: repo, path: startNode(f.edge).path})
                                  WHERE m.hash <> f.edge.source_hash }
                      OR EXISTS { MATCH (m:Module {repo: repo, path: endNode(f.edge).path})
                                  WHERE m.hash <> f.edge.target_hash } THEN ' (stale)' ELSE '' END END}] AS found;
