// The call graph of one repository as an adjacency list: every module, class, function and method (dotted name
// relative to the ingested root) with its callees. Module-level code belongs to the module's own node.
// Callees outside the repository appear as they are stored: `requests.get`, `<builtin>.len`; `callee_kind` says
// what each callee is (function, method, class, module, variable, external, builtin, unresolved).
:param repo => 'flask';
:param min_confidence => 0.0;
MATCH (n:Module {repo: $repo})
OPTIONAL MATCH (n)-[c:CALLS]->(t)
WHERE c.confidence >= $min_confidence
RETURN n.qname AS caller, 'module' AS kind,
       collect({callee: coalesce(t.qname, t.name), callee_kind: coalesce(t.kind, CASE WHEN t:Module THEN 'module' END),
                line: c.line, resolution: c.resolution, confidence: c.confidence}) AS calls
UNION ALL
MATCH (n:Symbol {repo: $repo})
WHERE n.kind <> 'variable'
OPTIONAL MATCH (n)-[c:CALLS]->(t)
WHERE c.confidence >= $min_confidence
RETURN n.qname AS caller, n.kind AS kind,
       collect({callee: coalesce(t.qname, t.name), callee_kind: coalesce(t.kind, CASE WHEN t:Module THEN 'module' END),
                line: c.line, resolution: c.resolution, confidence: c.confidence}) AS calls;
