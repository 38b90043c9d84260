// What does this symbol call, as a picture for Neo4j Browser? The same callees as `callees`: for each callee within
// $depth steps (capped at 10 by the pattern) its strongest shortest call chain from $qname, returned as a path so
// Browser draws it; kg's Browser style writes each CALLS edge's confidence on it. Outside names (`<builtin>.len`)
// are grey External nodes.
// $evidence: 'static' (ingest's CALLS), 'observed' (what `kg observe` saw run) or 'all'.
:params {repo: 'tinyshop', qname: 'shop.cart.Cart.checkout', depth: 2, min_confidence: 0.0, evidence: 'all', limit: 100};
MATCH (source:Symbol {key: $repo + ':' + $qname})
MATCH p = ALL SHORTEST (source)-[r:CALLS WHERE r.confidence >= $min_confidence
    AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))]->{1,10}(callee)
WHERE length(p) <= $depth AND callee <> source
WITH callee, p, reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END)
     AS weakest
ORDER BY length(p), weakest DESC
WITH callee, collect(p)[0] AS chain
RETURN chain
LIMIT toInteger($limit);
