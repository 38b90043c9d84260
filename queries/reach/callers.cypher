// The rows of `kg callers` for the callers a breadth-first walk found (kg/navigate/reach.py): each $found entry
// names the caller, the symbol it calls on its strongest shortest chain (`via`), that call's edge, the caller's
// depth and the weakest confidence on the chain. Two places per row: the call site (`call_path`:`call_line`) and
// where the caller is defined (`path`:`line`; a module's line is 1). An observed edge shows as `observed`,
// `observed via library` and `(stale)` when either end's file changed since it was observed.
:params {repo: 'tinyshop', found: []};
UNWIND $found AS found
MATCH (caller) WHERE elementId(caller) = found.id
MATCH (callee) WHERE elementId(callee) = found.via
MATCH ()-[edge]->() WHERE elementId(edge) = found.edge
OPTIONAL MATCH (from:Module {repo: $repo, path: caller.path})
OPTIONAL MATCH (to:Module {repo: $repo, path: callee.path})
RETURN found.depth AS depth, caller.qname AS caller, coalesce(caller.kind, 'module') AS kind,
       caller.path AS call_path, edge.line AS call_line, caller.path AS path, coalesce(caller.start_line, 1) AS line,
       callee.qname AS calls,
       CASE WHEN edge.resolution <> 'observed' THEN edge.resolution
            ELSE 'observed' + CASE edge.via WHEN 'library' THEN ' via library' ELSE '' END
                 + CASE WHEN from.hash <> edge.source_hash OR to.hash <> edge.target_hash THEN ' (stale)' ELSE '' END
       END AS resolution, found.weakest AS confidence;
