// What does a module offer? Its public top-level symbols (names without a leading underscore, or listed in
// `__all__`) and the public methods of its public classes, with signature, first docstring line and how many
// call sites and imports from other files use each one.
:params {repo: 'tinyshop', module: 'shop.cart', limit: 100};
MATCH (m:Module {repo: $repo})
WHERE m.qname = $module OR m.path = $module
OPTIONAL MATCH (m)-[:DEFINES]->(all:Variable {name: '__all__'})
MATCH (m)-[:DEFINES]->(top:Symbol)
WHERE NOT top.name STARTS WITH '_' OR all.signature CONTAINS ('"' + top.name + '"')
   OR all.signature CONTAINS ("'" + top.name + "'")
OPTIONAL MATCH (top:Class)-[:DEFINES]->(member:Method)
WHERE NOT member.name STARTS WITH '_' OR member.name = '__init__'
WITH m, top, collect(member) AS members
WITH m, [top] + members AS symbols
UNWIND symbols AS s
WITH m, s WHERE s IS NOT NULL
RETURN s.qname AS symbol, s.kind AS kind, s.start_line AS line, s.signature AS signature,
       head(split(coalesce(s.doc, ''), '\n')) AS doc,
       COUNT { MATCH (s)<-[:CALLS|IMPORTS]-(u) WHERE u.path <> m.path } AS uses
ORDER BY line
LIMIT toInteger($limit);
