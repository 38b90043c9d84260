// Which modules does the architecture review look at, and how big and how connected is each? Every module of the
// repository whose path matches none of the $exclude regular expressions, with its package (folder), lines,
// symbols, and fan-in / fan-out: how many other reviewed modules depend on it / it depends on (DEPENDS_ON).
:params {repo: 'tinyshop', exclude: ['(.*/)?tests(/.*)?']};
MATCH (m:Module {repo: $repo})
WHERE NOT any(x IN $exclude WHERE m.path =~ x)
RETURN m.qname AS module, m.path AS path, m.package AS package, m.lang AS lang, m.loc AS loc,
       COUNT { MATCH (s:Symbol {repo: $repo, path: m.path}) } AS symbols,
       COUNT { MATCH (m)<-[:DEPENDS_ON]-(o:Module) WHERE NOT any(x IN $exclude WHERE o.path =~ x) } AS fan_in,
       COUNT { MATCH (m)-[:DEPENDS_ON]->(o:Module) WHERE NOT any(x IN $exclude WHERE o.path =~ x) } AS fan_out
ORDER BY path;
