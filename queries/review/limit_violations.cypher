// Which modules are over a size or coupling limit? For each of $limits (modules whose dotted name matches one of
// its regular expressions), the reviewed modules with more lines than max_loc, more dependents than max_fan_in or
// more dependencies than max_fan_out (DEPENDS_ON among reviewed modules). A null limit is not checked.
:params {repo: 'tinyshop', exclude: ['(.*/)?tests(/.*)?'], limits: [{rule: 'limits: **', modules: ['.*'], max_loc: 30, max_fan_in: 3, max_fan_out: null}]};
UNWIND $limits AS lim
MATCH (m:Module {repo: $repo})
WHERE any(p IN lim.modules WHERE m.qname =~ p) AND NOT any(x IN $exclude WHERE m.path =~ x)
WITH lim, m,
     COUNT { MATCH (m)<-[:DEPENDS_ON]-(o:Module) WHERE NOT any(x IN $exclude WHERE o.path =~ x) } AS fan_in,
     COUNT { MATCH (m)-[:DEPENDS_ON]->(o:Module) WHERE NOT any(x IN $exclude WHERE o.path =~ x) } AS fan_out
UNWIND [{metric: 'loc', value: m.loc, max: toInteger(lim.max_loc)},
        {metric: 'fan_in', value: fan_in, max: toInteger(lim.max_fan_in)},
        {metric: 'fan_out', value: fan_out, max: toInteger(lim.max_fan_out)}] AS check
WITH lim, m, check
WHERE check.max IS NOT NULL AND check.value > check.max
RETURN lim.rule + ': max_' + check.metric + ' ' + toString(check.max) AS rule,
       check.metric + ' ' + toString(check.value) + ' > ' + toString(check.max) AS reason,
       m.qname AS source, null AS target, m.path AS path, null AS line, check.value AS weight
ORDER BY rule, source;
