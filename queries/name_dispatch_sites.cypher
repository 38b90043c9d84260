// Where could these methods be called by a name computed at run time? For each method, the `getattr` calls (always
// `dynamic` CALLS edges to `<builtin>.getattr`) made by methods of its own class or of a project base class up to
// six levels up: `handler = getattr(self, request.method.lower())` in a view base class runs a subclass's `get`.
// Dead-code reads each site's line to keep only lookups on `self`/`cls` with a computed name.
:params {repo: 'tinyshop', methods: ['shop.cart.Cart.checkout']};
UNWIND $methods AS qname
MATCH (:Symbol {key: $repo + ':' + qname})<-[:DEFINES]-(c:Class)
MATCH (c)-[:INHERITS]->{0,6}(base:Class)-[:DEFINES]->(m:Method)-[r:CALLS {resolution: 'dynamic'}]->
      (:External {name: '<builtin>.getattr'})
RETURN DISTINCT qname, m.path AS path, r.line AS line, m.end_line AS end_line, base.qname AS base;
