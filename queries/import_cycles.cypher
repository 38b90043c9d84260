// Which modules import each other in a cycle? For each module, the shortest import cycle through it of at most
// $max_length modules (capped at 8), each cycle listed once, starting at its alphabetically first module. A step is
// a DEPENDS_ON edge with an import among its kinds, whatever the form (`import b`, `from b import x`,
// `from . import b`), so a cycle that mixes forms is found too. Imports inside functions count: they are cycles to
// look at, not always bugs. Imports only made under `if TYPE_CHECKING:` (type_only) never run and do not count.
// `kg cycles` answers this with networkx (kg.navigate.cycles), breaking ties by name; `kg review` lists every cycle
// (strongly connected components) with the edges to cut.
:params {repo: 'tinyshop', max_length: 4, limit: 50};
MATCH (m:Module {repo: $repo})
MATCH p = ANY SHORTEST (m)(()-[d:DEPENDS_ON WHERE 'IMPORTS' IN d.kinds AND NOT coalesce(d.type_only, false)]->()){1,8}(m)
WITH nodes(p)[0..-1] AS ring, [r IN relationships(p) | r.line] AS lines
WHERE size(ring) <= $max_length
CALL (ring) {
  UNWIND ring AS n
  WITH n ORDER BY n.qname
  RETURN collect(n.qname) AS key
}
WITH key, collect([ring, lines])[0] AS found
WITH key, found[0] AS ring, found[1] AS lines
WITH key, ring, lines, [i IN range(0, size(ring) - 1) WHERE ring[i].qname = key[0]][0] AS first
RETURN size(ring) AS length, [n IN ring[first..] + ring[..first] | n.qname] AS modules,
       [n IN ring[first..] + ring[..first] | n.path] AS paths, lines[first..] + lines[..first] AS lines
ORDER BY length, modules
LIMIT toInteger($limit);
