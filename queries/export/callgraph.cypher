// The call graph of one repository as an adjacency list: every module, class, function and method (dotted name
// relative to the ingested root) with its callees. Module-level code belongs to the module's own node.
// Callees outside the repository appear as they are stored: `requests.get`, `<builtin>.len`; `callee_kind` says
// what each callee is (function, method, class, module, variable, external, builtin, unresolved). $evidence:
// 'static' (ingest's edges), 'observed' (`kg observe`: `via` says 'direct' or 'library') or 'all'. `through`: the
// decorator's wrapper a call of a decorated function runs it through (kept whatever its confidence: the wrapper's
// own call of that function is certain once anything calls it through the wrapper).
:param repo => 'flask';
:param min_confidence => 0.0;
:param evidence => 'static';
MATCH (n:Module {repo: $repo})
OPTIONAL MATCH (n)-[c:CALLS]->(t)
WHERE (c.confidence >= $min_confidence OR c.through IS NOT NULL)
  AND ($evidence = 'all' OR (c.resolution = 'observed') = ($evidence = 'observed'))
RETURN n.qname AS caller, 'module' AS kind,
       collect({callee: coalesce(t.qname, t.name), callee_kind: coalesce(t.kind, CASE WHEN t:Module THEN 'module' END),
                line: c.line, resolution: c.resolution, confidence: c.confidence, via: c.via, count: c.count,
                through: c.through}) AS calls
UNION ALL
MATCH (n:Symbol {repo: $repo})
WHERE n.kind <> 'variable'
OPTIONAL MATCH (n)-[c:CALLS]->(t)
WHERE (c.confidence >= $min_confidence OR c.through IS NOT NULL)
  AND ($evidence = 'all' OR (c.resolution = 'observed') = ($evidence = 'observed'))
RETURN n.qname AS caller, n.kind AS kind,
       collect({callee: coalesce(t.qname, t.name), callee_kind: coalesce(t.kind, CASE WHEN t:Module THEN 'module' END),
                line: c.line, resolution: c.resolution, confidence: c.confidence, via: c.via, count: c.count,
                through: c.through}) AS calls;
