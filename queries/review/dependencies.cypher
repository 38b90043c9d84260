// Which reviewed module depends on which? Every DEPENDS_ON between two modules outside $exclude: the imports,
// inheritances and certain calls that make it up (weight, kinds), the first importing line in the source module, and
// whether every import of it runs inside a function (deferred) or sits under `if TYPE_CHECKING:` (type_only).
:params {repo: 'tinyshop', exclude: ['(.*/)?tests(/.*)?']};
MATCH (a:Module {repo: $repo})-[d:DEPENDS_ON]->(b:Module)
WHERE NOT any(x IN $exclude WHERE a.path =~ x OR b.path =~ x)
RETURN a.qname AS source, b.qname AS target, a.path AS path, d.line AS line, d.weight AS weight, d.kinds AS kinds,
       d.deferred AS deferred, coalesce(d.type_only, false) AS type_only
ORDER BY source, target;
