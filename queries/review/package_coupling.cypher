// How coupled is each package (folder)? Afferent coupling Ca: reviewed modules outside the package that depend on
// one of its modules; efferent coupling Ce: reviewed modules outside it that its modules depend on; instability
// I = Ce / (Ca + Ce): 0 is depended on and depends on nothing (hard to change), 1 the reverse. Also how many
// packages use it and how many it uses.
:params {repo: 'tinyshop', exclude: []};
MATCH (m:Module {repo: $repo})
WHERE NOT any(x IN $exclude WHERE m.path =~ x)
WITH m.package AS package, collect(m) AS members, sum(m.loc) AS loc
CALL (package, members) {
  UNWIND members AS m
  OPTIONAL MATCH (m)<-[:DEPENDS_ON]-(o:Module)
  WHERE o.package <> package AND NOT any(x IN $exclude WHERE o.path =~ x)
  RETURN count(DISTINCT o) AS ca, count(DISTINCT o.package) AS used_by
}
CALL (package, members) {
  UNWIND members AS m
  OPTIONAL MATCH (m)-[:DEPENDS_ON]->(o:Module)
  WHERE o.package <> package AND NOT any(x IN $exclude WHERE o.path =~ x)
  RETURN count(DISTINCT o) AS ce, count(DISTINCT o.package) AS uses
}
RETURN package, size(members) AS modules, loc, ca, ce,
       CASE WHEN ca + ce = 0 THEN null ELSE round(toFloat(ce) / (ca + ce), 2) END AS instability, used_by, uses
ORDER BY ca + ce DESC, package;
