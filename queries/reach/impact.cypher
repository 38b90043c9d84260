// The rows of `kg impact` for the dependents a breadth-first walk found (kg/navigate/reach.py): each $found entry
// names the dependent, its depth, the weakest confidence on its strongest shortest chain, the edge kinds on that
// chain (`types`), the changed symbol it reaches and which evidence the chain used.
:params {found: []};
UNWIND $found AS found
MATCH (dependent) WHERE elementId(dependent) = found.id
RETURN found.depth AS depth, dependent.qname AS dependent, coalesce(dependent.kind, 'module') AS kind,
       dependent.path AS path, dependent.start_line AS line, found.types AS via, found.reaches AS reaches,
       found.weakest AS confidence, found.evidence AS evidence;
