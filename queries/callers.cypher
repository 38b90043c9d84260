// Who calls this symbol? Direct callers are at depth 1; transitive callers up to $depth steps (at most 4: see
// below). Each caller appears once, at its shortest distance, with the weakest edge confidence along its
// strongest shortest chain (1.0 = certain; name_only and dynamic guesses are lower) and the symbol it calls on that
// chain (`calls`). Two places per row: the call site (`call_path`:`call_line`) and where the caller itself is
// defined (`path`:`line`). Callers are functions, methods, class bodies or modules (a module's line is 1).
// $evidence: 'static' (what ingest resolved), 'observed' (what `kg observe` saw run) or 'all'. An observed edge
// shows as `observed`, `observed via library` (library frames in between) and `(stale)` when either end's file
// changed since it was observed; it has no call line.
// For Neo4j Browser: the pattern's bound is written as 4 because Neo4j takes no parameter there, and a search of
// ten steps (for any $depth) ran for 20 minutes on django; edit it to look deeper. `kg callers` walks one step at
// a time instead (queries/reach/) and answers any depth up to 10 with the same rows.
:params {repo: 'tinyshop', qname: 'shop.models.Order.subtotal_cents', depth: 3, min_confidence: 0.0, evidence: 'all', limit: 100};
MATCH (target:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (target)<-[r:CALLS WHERE r.confidence >= $min_confidence
                                  AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))
                                 ]-{1,4}(caller)
WHERE length(p) <= $depth AND caller <> target
WITH caller, length(p) AS depth, nodes(p)[-2] AS callee, last(relationships(p)) AS edge,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY depth, weakest DESC, edge.line
WITH caller, collect({depth: depth, weakest: weakest, callee: callee, edge: edge})[0] AS best
WITH caller, best, best.edge AS edge
OPTIONAL MATCH (from:Module {repo: $repo, path: caller.path})
OPTIONAL MATCH (to:Module {repo: $repo, path: best.callee.path})
RETURN best.depth AS depth, caller.qname AS caller, coalesce(caller.kind, 'module') AS kind,
       caller.path AS call_path, edge.line AS call_line, caller.path AS path, coalesce(caller.start_line, 1) AS line,
       best.callee.qname AS calls,
       CASE WHEN edge.resolution <> 'observed' THEN edge.resolution
            ELSE 'observed' + CASE edge.via WHEN 'library' THEN ' via library' ELSE '' END
                 + CASE WHEN from.hash <> edge.source_hash OR to.hash <> edge.target_hash THEN ' (stale)' ELSE '' END
       END AS resolution, best.weakest AS confidence
ORDER BY depth, confidence DESC, caller
LIMIT toInteger($limit);
