// Who calls a symbol of the target repo, given its name or qualified name: caller, file, line, how it was resolved.
:param repo => 'calc';
:param symbol => 'add';
:param limit => 20;
MATCH (s:Symbol {repo: $repo})
WHERE s.qname = $symbol OR s.name = $symbol OR s.qname ENDS WITH '.' + $symbol
MATCH (s)<-[c:CALLS]-(caller)
RETURN s.qname AS callee, coalesce(caller.qname, caller.path) AS caller, caller.path AS path, c.line AS line,
       c.resolution AS resolution, c.confidence AS confidence
ORDER BY path, line
LIMIT $limit;
