// What does this symbol call? Direct callees are at depth 1; transitive ones up to $depth steps (capped at 10 by
// the pattern), each once at its shortest distance with the weakest edge confidence along its strongest shortest
// chain, the caller on that chain (`from`) and the line of the call. Callees outside the repository appear by name
// (`json.dumps`, `<builtin>.len`, `<unresolved>.foo`) and are not followed further.
// $evidence: 'static', 'observed' (`kg observe`) or 'all'; observed edges show as in the callers query.
:param repo => 'flask';
:param qname => 'flask.app.Flask.wsgi_app';
:param depth => 1;
:param min_confidence => 0.0;
:param evidence => 'all';
:param limit => 100;
MATCH (source:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (source)-[r:CALLS WHERE r.confidence >= $min_confidence
                                  AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))
                                 ]->{1,10}(callee)
WHERE length(p) <= $depth AND callee <> source
WITH callee, length(p) AS depth, nodes(p)[-2] AS caller, last(relationships(p)) AS edge,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY depth, weakest DESC, edge.line
WITH callee, collect({depth: depth, weakest: weakest, caller: caller, edge: edge})[0] AS best
WITH callee, best, best.edge AS edge
OPTIONAL MATCH (from:Module {repo: $repo, path: best.caller.path})
OPTIONAL MATCH (to:Module {repo: $repo, path: callee.path})
RETURN best.depth AS depth, coalesce(callee.qname, callee.name) AS callee,
       coalesce(callee.kind, CASE WHEN callee:External THEN 'external' ELSE 'module' END) AS kind,
       callee.path AS path, edge.line AS line, best.caller.qname AS `from`,
       CASE WHEN edge.resolution <> 'observed' THEN edge.resolution
            ELSE 'observed' + CASE edge.via WHEN 'library' THEN ' via library' ELSE '' END
                 + CASE WHEN from.hash <> edge.source_hash OR to.hash <> edge.target_hash THEN ' (stale)' ELSE '' END
       END AS resolution, best.weakest AS confidence
ORDER BY depth, confidence DESC, callee
LIMIT $limit;
