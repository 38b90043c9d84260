// Which base-class methods do these $methods override (element ids, each with the `depth` and chain strength
// `weakest` a walk reached it at)? A call resolved to the base method may run the override, so `kg tests-for`
// walks on from the base methods, leaving out those it already met ($known element ids). `__init__` is left out:
// every class has one.
:params {methods: [], known: []};
UNWIND $methods AS hit
MATCH (method:Method) WHERE elementId(method) = hit.id AND method.name <> '__init__'
MATCH (method)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(base:Method)
WHERE base.name = method.name AND NOT elementId(base) IN $known
WITH base, min(hit.depth) AS depth, max(hit.weakest) AS weakest
RETURN elementId(base) AS id, base.qname AS name, depth, weakest;
