// How do the modules of one import cycle depend on each other? The import DEPENDS_ON edges among $modules, as a
// picture in Neo4j Browser (or rows elsewhere): paste a cycle's module list from the review.
:params {repo: 'tinyshop', modules: ['shop.cart', 'shop.pricing']};
MATCH p = (a:Module {repo: $repo})-[d:DEPENDS_ON]->(b:Module {repo: $repo})
WHERE a.qname IN $modules AND b.qname IN $modules AND 'IMPORTS' IN d.kinds AND NOT coalesce(d.type_only, false)
RETURN p;
