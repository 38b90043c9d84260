// One breadth-first step of a walk along the graph's dependency edges: the nodes one edge away from each $frontier
// node (element ids), against the edges ($direction 'in': who calls, imports or inherits from them; 'out': what
// they call, ...), through edges of the $types asked for (CALLS, IMPORTS, INHERITS), of at least $min_confidence
// and of the asked $evidence ('static': ingest's edges, 'observed': `kg observe`'s, or 'all'). One row per edge,
// saying whether it was observed and, if so, whether either end's file changed since ($repo's modules).
// kg/navigate/reach.py keeps, for each node it has not met before, the edge on its strongest chain.
// Why steps instead of one `ALL SHORTEST (x)<-[:CALLS]-{1,10}(y)` pattern: Neo4j takes no parameter as a pattern
// bound, so that pattern searched ten steps whatever depth was asked, and on django (200k CALLS edges) it ran for
// over 20 minutes at depth 1; a step costs what its frontier's edges cost.
:params {repo: 'tinyshop', frontier: [], direction: 'in', types: ['CALLS'], min_confidence: 0.0, evidence: 'all'};
UNWIND $frontier AS id
MATCH (node) WHERE elementId(node) = id
CALL (node) {
  WITH node WHERE $direction = 'in'
  MATCH (node)<-[r:CALLS|IMPORTS|INHERITS]-(next)
  RETURN r, next
  UNION ALL
  WITH node WHERE $direction = 'out'
  MATCH (node)-[r:CALLS|IMPORTS|INHERITS]->(next)
  RETURN r, next
}
WITH id, r, next
WHERE type(r) IN $types AND r.confidence >= $min_confidence
  AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))
WITH id, r, next, r.resolution = 'observed' AS observed
RETURN id AS via, elementId(next) AS id, coalesce(next.qname, next.name) AS name, elementId(r) AS edge,
       type(r) AS type, r.confidence AS confidence, r.line AS line, observed,
       observed AND (EXISTS { MATCH (m:Module {repo: $repo, path: startNode(r).path}) WHERE m.hash <> r.source_hash }
                     OR EXISTS { MATCH (m:Module {repo: $repo, path: endNode(r).path}) WHERE m.hash <> r.target_hash })
       AS stale;
