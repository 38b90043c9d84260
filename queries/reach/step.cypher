// One breadth-first step of a walk along calls: the nodes one edge away from each $frontier node (element ids),
// against the edges ($direction 'in': who calls them; 'out': what they call), through CALLS edges of at least
// $min_confidence and of the asked $evidence ('static': ingest's edges, 'observed': `kg observe`'s, or 'all').
// One row per edge; kg/navigate/reach.py keeps, for each node it has not met before, the edge on its strongest
// chain. Why steps instead of one `ALL SHORTEST (x)<-[:CALLS]-{1,10}(y)` pattern: Neo4j cannot take the bound from
// a parameter, so that pattern searched ten steps whatever depth was asked, and on django (200k CALLS edges) it
// ran for over 20 minutes at depth 1; a step costs what its frontier's edges cost.
:params {frontier: [], direction: 'in', min_confidence: 0.0, evidence: 'all'};
UNWIND $frontier AS id
MATCH (node) WHERE elementId(node) = id
CALL (node) {
  WITH node WHERE $direction = 'in'
  MATCH (node)<-[r:CALLS]-(next)
  RETURN r, next
  UNION ALL
  WITH node WHERE $direction = 'out'
  MATCH (node)-[r:CALLS]->(next)
  RETURN r, next
}
WITH id, r, next
WHERE r.confidence >= $min_confidence AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))
RETURN id AS via, elementId(next) AS id, coalesce(next.qname, next.name) AS name, elementId(r) AS edge,
       r.confidence AS confidence, r.line AS line;
