// Which modules import each other in a cycle? For each module, the shortest import cycle through it of at most
// $max_length modules (capped at 8), each cycle listed once, starting at its alphabetically first module. An import step is either
// `from b import name` (an IMPORTS edge to a symbol b defines) or `import b` (an IMPORTS edge to module b); a cycle
// is made of steps of one of the two kinds (the graph cannot mix the directions in one bounded search).
// Imports inside functions or under `if TYPE_CHECKING:` count too: they are cycles to look at, not always bugs.
:params {repo: 'tinyshop', max_length: 4, limit: 50};
CALL () {
  MATCH (m:Module {repo: $repo})
  MATCH p = ANY SHORTEST (m)((:Module)-[:IMPORTS]->(:Symbol)<-[:DEFINES]-(:Module)){1,8}(back)
  WHERE back = m
  RETURN m, [n IN nodes(p) WHERE n:Module] AS ring, 'symbol' AS step
  UNION
  MATCH (m:Module {repo: $repo})
  MATCH p = ANY SHORTEST (m)((:Module)-[:IMPORTS]->(:Module)){1,8}(back)
  WHERE back = m
  RETURN m, nodes(p) AS ring, 'module' AS step
}
WITH ring[0..-1] AS ring, step
WHERE size(ring) <= $max_length
CALL (ring) {
  UNWIND ring AS n
  WITH n ORDER BY n.qname
  RETURN collect(n.qname) AS key
}
WITH key, step, collect(ring)[0] AS ring
WITH key, step, ring, [i IN range(0, size(ring) - 1) WHERE ring[i].qname = key[0]][0] AS first
RETURN size(ring) AS length, [n IN ring[first..] + ring[..first] | n.qname] AS modules, step
ORDER BY length, modules
LIMIT toInteger($limit);
