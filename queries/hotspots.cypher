// Where does the call graph concentrate? Functions, methods and classes ranked by fan-in + fan-out: call sites
// that call them (fan_in, from how many distinct callers) and call sites in them (fan_out). High fan-in: risky to
// change; high fan-out: knows too much. $repo null ranks every repository. Static call sites only (observed CALLS
// from `kg observe` are not call sites), and no guesses either: edges below confidence 0.6 (name_only candidates,
// functions handed to code kg cannot follow, dynamic lookups) would rank what a guess touches most.
:params {repo: 'tinyshop', limit: 25};
MATCH (s:Symbol)
WHERE ($repo IS NULL OR s.repo = $repo) AND s.kind <> 'variable'
WITH s, COUNT { (s)<-[r:CALLS WHERE r.resolution <> 'observed' AND r.confidence >= 0.6]-() } AS fan_in,
     COUNT { (s)-[r:CALLS WHERE r.resolution <> 'observed' AND r.confidence >= 0.6]->() } AS fan_out
WHERE fan_in + fan_out > 0
ORDER BY fan_in + fan_out DESC, s.qname
LIMIT toInteger($limit)
RETURN s.repo AS repo, s.qname AS symbol, s.kind AS kind, s.path AS path, s.start_line AS line, fan_in,
       COUNT { MATCH (c)-[r:CALLS]->(s) WHERE r.resolution <> 'observed' AND r.confidence >= 0.6 RETURN DISTINCT c }
       AS callers, fan_out;
