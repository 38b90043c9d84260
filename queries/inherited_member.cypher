// What does `Class.member` name when the class does not define `member` itself (`Flask.route`, defined by
// Scaffold)? For each class whose dotted name is $owner or ends with it, the symbol named $member that the nearest
// base class defines, along INHERITS (fewest steps: Python's method resolution order for single inheritance; with
// several bases at one distance, the first by name). $repo null: every repository.
:params {owner: 'JsonOrderStore', member: 'load', repo: null};
MATCH (c:Symbol {name: last(split($owner, '.'))})
WHERE c:Class AND (c.qname = $owner OR c.qname ENDS WITH '.' + $owner) AND ($repo IS NULL OR c.repo = $repo)
  AND NOT EXISTS { (c)-[:DEFINES]->(:Symbol {name: $member}) }
MATCH path = (c)-[:INHERITS]->{1,10}(base:Class)-[:DEFINES]->(m:Symbol {name: $member})
WITH c, base, m, length(path) AS steps
ORDER BY steps, base.qname
WITH c, collect({base: base, m: m})[0] AS nearest
RETURN c.repo AS repo, c.qname AS owner, nearest.base.qname AS base, nearest.m.qname AS qname,
       nearest.m.kind AS kind, nearest.m.path AS path, nearest.m.start_line AS line, nearest.m.end_line AS end_line
ORDER BY repo, owner
LIMIT 50;
