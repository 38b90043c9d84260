// How does one symbol reach another through calls, as a picture for Neo4j Browser? The shortest call paths from
// $source to $target (at most $depth steps, capped at 10 by the pattern) as paths Browser draws, the strongest
// first; kg's Browser style writes each CALLS edge's confidence on it. No row: no such path within the depth.
// $evidence: 'static' (ingest's CALLS), 'observed' (what `kg observe` saw run) or 'all'.
:params {repo: 'tinyshop', source: 'tests.test_cart.test_bulk_discount', target: 'shop.models.Order.subtotal_cents', depth: 6, evidence: 'all', limit: 5};
MATCH p = ALL SHORTEST (a:Symbol {key: $repo + ':' + $source})-[r:CALLS WHERE $evidence = 'all'
          OR (r.resolution = 'observed') = ($evidence = 'observed')]->{1,10}(b:Symbol {key: $repo + ':' + $target})
WHERE length(p) <= $depth
WITH p, reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
RETURN p AS path
ORDER BY weakest DESC
LIMIT toInteger($limit);
