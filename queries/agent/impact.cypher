// What may break if a symbol (or every symbol of a file) changes: transitive callers up to $depth hops, nearest first.
:param repo => 'calc';
:param target => 'calc/ops.py';
:param depth => 3;
:param limit => 30;
MATCH (s:Symbol {repo: $repo})
WHERE s.path = $target OR s.qname = $target OR s.name = $target
MATCH p = (s)<-[:CALLS*1..3]-(caller)
WHERE caller.path <> s.path AND length(p) <= $depth
WITH caller, min(length(p)) AS hops
RETURN coalesce(caller.qname, caller.path) AS caller, caller.path AS path, hops
ORDER BY hops, path
LIMIT $limit;
