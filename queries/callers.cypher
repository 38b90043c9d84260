// Who calls this symbol? Direct callers are at depth 1; transitive callers up to $depth steps (capped at 10 by
// the pattern). Each caller appears once, at its shortest distance, with the weakest edge confidence along its
// strongest shortest chain (1.0 = certain; name_only and dynamic guesses are lower), the symbol it calls on that
// chain (`calls`) and the line of that call. Callers are functions, methods, class bodies or modules.
:param repo => 'flask';
:param qname => 'flask.app.Flask.wsgi_app';
:param depth => 3;
:param min_confidence => 0.0;
:param limit => 100;
MATCH (target:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (target)<-[r:CALLS WHERE r.confidence >= $min_confidence]-{1,10}(caller)
WHERE length(p) <= $depth AND caller <> target
WITH caller, length(p) AS depth, nodes(p)[-2] AS callee, last(relationships(p)) AS edge,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY depth, weakest DESC, edge.line
WITH caller, collect({depth: depth, weakest: weakest, callee: callee.qname, line: edge.line,
                      resolution: edge.resolution})[0] AS best
RETURN best.depth AS depth, caller.qname AS caller, coalesce(caller.kind, 'module') AS kind, caller.path AS path,
       best.line AS line, best.callee AS calls, best.resolution AS resolution, best.weakest AS confidence
ORDER BY depth, confidence DESC, caller
LIMIT $limit;
