// What does a module depend on, and what depends on it? Modules of the repository it imports from (`imports`),
// outside packages it imports (`external`), and modules that import from it (`imported_by`), each with the names
// involved and the first line.
:params {repo: 'tinyshop', module: 'shop.cart', limit: 100};
MATCH (m:Module {repo: $repo})
WHERE m.qname = $module OR m.path = $module
CALL (m) {
  MATCH (m)-[r:IMPORTS]->(t)
  OPTIONAL MATCH (owner:Module)-[:DEFINES]->(t)
  WITH r, t, CASE WHEN t:External THEN null ELSE coalesce(owner, t) END AS target
  RETURN CASE WHEN target IS NULL THEN 'external' ELSE 'imports' END AS direction,
         coalesce(target.qname, t.name) AS module, collect(DISTINCT coalesce(t.name, '*')) AS names,
         min(r.line) AS line
  UNION
  MATCH (m)-[:DEFINES]->{0,1}(t)<-[r:IMPORTS]-(importer:Module)
  WHERE importer <> m
  RETURN 'imported_by' AS direction, importer.qname AS module, collect(DISTINCT coalesce(t.name, '*')) AS names,
         min(r.line) AS line
}
RETURN direction, module, names, line
ORDER BY direction DESC, module
LIMIT toInteger($limit);
