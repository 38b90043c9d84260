// How do the modules depend on each other, as a picture? The DEPENDS_ON edges with an import between modules
// outside $exclude, as paths Neo4j Browser draws (at most $limit; `kg review` folds a large repository into
// folders instead). Edge weight: how many imports, inheritances and certain calls make up the dependency.
:params {repo: 'tinyshop', exclude: ['(.*/)?tests(/.*)?'], limit: 300};
MATCH p = (a:Module {repo: $repo})-[d:DEPENDS_ON]->(b:Module)
WHERE 'IMPORTS' IN d.kinds AND NOT any(x IN $exclude WHERE a.path =~ x OR b.path =~ x)
RETURN p
ORDER BY d.weight DESC
LIMIT toInteger($limit);
