// What does this symbol call? Direct callees are at depth 1; transitive ones up to $depth steps (at most 4: see
// below), each once at its shortest distance with the weakest edge confidence along its strongest shortest
// chain. Two places per row: the call site (`call_path`:`call_line`, inside `from`, the caller on that chain) and
// where the callee is defined (`path`:`line`). Callees outside the repository appear by name (`json.dumps`,
// `<builtin>.len`, `<unresolved>.foo`), without a definition, and are not followed further.
// $evidence: 'static', 'observed' (`kg observe`) or 'all'; observed edges show as in the callers query.
// For Neo4j Browser: the pattern's bound is written as 4 because Neo4j takes no parameter there, and a search of
// ten steps (for any $depth) ran for 20 minutes on django; edit it to look deeper. `kg callees` walks one step at
// a time instead (queries/reach/) and answers any depth up to 10 with the same rows.
:params {repo: 'tinyshop', qname: 'shop.cart.Cart.checkout', depth: 1, min_confidence: 0.0, evidence: 'all', limit: 100};
MATCH (source:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (source)-[r:CALLS WHERE r.confidence >= $min_confidence
                                  AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))
                                 ]->{1,4}(callee)
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
       best.caller.path AS call_path, edge.line AS call_line, best.caller.qname AS `from`,
       callee.path AS path, CASE WHEN callee:External THEN null ELSE coalesce(callee.start_line, 1) END AS line,
       CASE WHEN edge.resolution <> 'observed' THEN edge.resolution
            ELSE 'observed' + CASE edge.via WHEN 'library' THEN ' via library' ELSE '' END
                 + CASE WHEN from.hash <> edge.source_hash OR to.hash <> edge.target_hash THEN ' (stale)' ELSE '' END
       END AS resolution, best.weakest AS confidence
ORDER BY depth, confidence DESC, callee
LIMIT toInteger($limit);
