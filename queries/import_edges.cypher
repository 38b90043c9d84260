// Which module imports which, counting only imports that run? Every DEPENDS_ON edge of $repo with an import among its
// kinds and not only under `if TYPE_CHECKING:` (type_only), with the first importing line: what `kg cycles` searches
// (kg.navigate.cycles) for the shortest import cycle through each module.
:params {repo: 'tinyshop'};
MATCH (a:Module {repo: $repo})-[d:DEPENDS_ON]->(b:Module {repo: $repo})
WHERE 'IMPORTS' IN d.kinds AND NOT coalesce(d.type_only, false)
RETURN a.qname AS source, b.qname AS target, a.path AS path, b.path AS target_path, d.line AS line;
