// What does this symbol call? Direct callees are at depth 1; transitive ones up to $depth steps (capped at 10 by
// the pattern), each once at its shortest distance with the weakest edge confidence along its strongest shortest
// chain. Two places per row: the call site (`call_path`:`call_line`, inside `from`, the caller on that chain) and
// where the callee is defined (`path`:`line`). Callees outside the repository appear by name (`json.dumps`,
// `<builtin>.len`, `<unresolved>.foo`), without a definition, and are not followed further.
:params {repo: 'tinyshop', qname: 'shop.cart.Cart.checkout', depth: 1, min_confidence: 0.0, limit: 100};
MATCH (source:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (source)-[r:CALLS WHERE r.confidence >= $min_confidence]->{1,10}(callee)
WHERE length(p) <= $depth AND callee <> source
WITH callee, length(p) AS depth, nodes(p)[-2] AS caller, last(relationships(p)) AS edge,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY depth, weakest DESC, edge.line
WITH callee, collect({depth: depth, weakest: weakest, caller: caller.qname, call_path: caller.path,
                      call_line: edge.line, resolution: edge.resolution})[0] AS best
RETURN best.depth AS depth, coalesce(callee.qname, callee.name) AS callee,
       coalesce(callee.kind, CASE WHEN callee:External THEN 'external' ELSE 'module' END) AS kind,
       best.call_path AS call_path, best.call_line AS call_line, best.caller AS `from`,
       callee.path AS path, CASE WHEN callee:External THEN null ELSE coalesce(callee.start_line, 1) END AS line,
       best.resolution AS resolution, best.weakest AS confidence
ORDER BY depth, confidence DESC, callee
LIMIT toInteger($limit);
