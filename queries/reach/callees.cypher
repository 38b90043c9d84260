// The rows of `kg callees` for the callees a breadth-first walk found (kg/navigate/reach.py): each $found entry
// names the callee, the symbol that calls it on its strongest shortest chain (`via`), that call's edge, the
// callee's depth and the weakest confidence on the chain. The call site is `call_path`:`call_line`; where the
// callee is defined is `path`:`line` (none for names from outside the project, kind `external`). An observed edge
// shows as `observed`, `observed via library` and `(stale)` when either end's file changed since it was observed.
:params {repo: 'tinyshop', found: []};
UNWIND $found AS found
MATCH (callee) WHERE elementId(callee) = found.id
MATCH (caller) WHERE elementId(caller) = found.via
MATCH ()-[edge]->() WHERE elementId(edge) = found.edge
OPTIONAL MATCH (from:Module {repo: $repo, path: caller.path})
OPTIONAL MATCH (to:Module {repo: $repo, path: callee.path})
RETURN found.depth AS depth, coalesce(callee.qname, callee.name) AS callee,
       coalesce(callee.kind, CASE WHEN callee:External THEN 'external' ELSE 'module' END) AS kind,
       caller.path AS call_path, edge.line AS call_line, caller.qname AS `from`,
       callee.path AS path, CASE WHEN callee:External THEN null ELSE coalesce(callee.start_line, 1) END AS line,
       CASE WHEN edge.resolution <> 'observed' THEN edge.resolution
            ELSE 'observed' + CASE edge.via WHEN 'library' THEN ' via library' ELSE '' END
                 + CASE WHEN from.hash <> edge.source_hash OR to.hash <> edge.target_hash THEN ' (stale)' ELSE '' END
       END AS resolution, found.weakest AS confidence;
