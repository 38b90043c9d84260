// What changes when $qnames (symbols or modules of repository $repo) change: each one with everything it defines
// (a class its methods, a module its classes and functions), and the base-class methods a changed method
// overrides (a call resolved to the base method may run it). `kg impact` and `kg tests-for` walk back from these
// (kg/navigate/reach.py).
:params {repo: 'tinyshop', qnames: ['shop.pricing.bulk_discount']};
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
WITH DISTINCT start
RETURN elementId(start) AS id, start.qname AS name;
