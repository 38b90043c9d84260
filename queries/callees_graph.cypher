// What does this symbol call, as a picture for Neo4j Browser? The same callees as `callees`: for each callee within
// $depth steps (at most 4: see below) its strongest shortest call chain from $qname, returned as a path so
// Browser draws it; kg's Browser style writes each CALLS edge's confidence on it. Outside names (`<builtin>.len`)
// are grey External nodes.
// $evidence: 'static' (ingest's CALLS), 'observed' (what `kg observe` saw run) or 'all'.
// For Neo4j Browser: the pattern's bound is written as 4 because Neo4j takes no parameter there, and a search of
// ten steps (for any $depth) ran for 20 minutes on django; edit it to look deeper. `kg callees` walks one step at
// a time instead (queries/reach/) and answers any depth up to 10 with the same rows.
:params {repo: 'tinyshop', qname: 'shop.cart.Cart.checkout', depth: 2, min_confidence: 0.0, evidence: 'all', limit: 100};
MATCH (source:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (source)-[r:CALLS WHERE r.confidence >= $min_confidence
    AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))]->{1,4}(callee)
WHERE length(p) <= $depth AND callee <> source
WITH callee, p, reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END)
     AS weakest
ORDER BY length(p), weakest DESC
WITH callee, collect(p)[0] AS chain
RETURN chain
LIMIT toInteger($limit);
