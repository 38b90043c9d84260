// What may break if these symbols or modules change (their blast radius)? Everything that reaches them through
// incoming CALLS, IMPORTS or INHERITS edges (callers, importers, subclasses), transitively up to $depth steps
// (at most 5: see below). A class or module counts with everything it defines. Each dependent appears once,
// at its shortest distance (group by `depth`), with the weakest edge confidence on that path (the strongest such
// path when several are equally short), the edge kinds it went through and the changed symbol it reaches.
// A method also stands for the base-class methods it overrides: a call resolved to the base method may run it.
// For a file, pass its module's dotted name (`shop.cart`). $evidence: 'static' (ingest's edges), 'observed' (CALLS
// `kg observe` saw run) or 'all'; `evidence` says which the path used, `(stale)` when an observed edge on it is
// older than its files.
// For Neo4j Browser: the pattern's bound is written as 5 because Neo4j takes no parameter there, and a search of
// ten steps (for any $depth) ran for hours on django; edit it to look deeper. `kg impact` walks one step at a time
// instead (queries/reach/) and answers any depth up to 10 with the same rows.
:params {repo: 'tinyshop', qnames: ['shop.pricing.bulk_discount'], depth: 5, min_confidence: 0.0, evidence: 'all', limit: 200};
UNWIND $qnames AS qname
CALL (qname) {
  MATCH (s:Symbol {key: $repo + ':' + qname})
  RETURN s AS root
  UNION
  MATCH (m:Module {qkey: $repo + ':' + qname})
  RETURN m AS root
}
MATCH (root)-[:DEFINES]->{0,4}(changed)
OPTIONAL MATCH (changed)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(overridden:Method)
WHERE overridden.name = changed.name
WITH collect(DISTINCT changed) + collect(DISTINCT overridden) AS changed
UNWIND changed AS start
MATCH p = ALL SHORTEST (start)<-[r:CALLS|IMPORTS|INHERITS WHERE r.confidence >= $min_confidence
    AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))]-{1,5}(dependent)
WHERE length(p) <= $depth AND NOT dependent IN changed
WITH dependent, start, length(p) AS depth, [e IN relationships(p) | type(e)] AS via, relationships(p) AS edges,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY depth, weakest DESC
WITH dependent, collect({depth: depth, weakest: weakest, via: via, reaches: start.qname, edges: edges})[0] AS best
WITH dependent, best, [e IN best.edges WHERE e.resolution = 'observed'] AS observed
RETURN best.depth AS depth, dependent.qname AS dependent, coalesce(dependent.kind, 'module') AS kind,
       dependent.path AS path, dependent.start_line AS line, best.via AS via, best.reaches AS reaches,
       best.weakest AS confidence,
       CASE size(observed) WHEN 0 THEN 'static' WHEN size(best.edges) THEN 'observed' ELSE 'static+observed' END
       + CASE WHEN any(e IN observed WHERE EXISTS {
                   MATCH (m:Module {repo: $repo}) WHERE (m.path = startNode(e).path AND m.hash <> e.source_hash)
                                                     OR (m.path = endNode(e).path AND m.hash <> e.target_hash) })
              THEN ' (stale)' ELSE '' END AS evidence
ORDER BY depth, confidence DESC, dependent
LIMIT toInteger($limit);
