// How does one symbol reach another through calls? The shortest call paths from $source to $target, at most
// $depth steps (capped at 10 by the pattern), each with its steps (caller, line, resolution, confidence) and the
// weakest edge confidence on it. No row: the source does not reach the target within the depth. $evidence: 'static',
// 'observed' (`kg observe`) or 'all'; an observed step's resolution says `observed`, `via library`, `(stale)`.
:params {repo: 'tinyshop', source: 'tests.test_cart.test_bulk_discount', target: 'shop.models.Order.subtotal_cents', depth: 6, evidence: 'all', limit: 5};
MATCH p = ALL SHORTEST (a:Symbol {key: $repo + ':' + $source})-[r:CALLS WHERE $evidence = 'all'
          OR (r.resolution = 'observed') = ($evidence = 'observed')]->{1,10}(b:Symbol {key: $repo + ':' + $target})
WHERE length(p) <= $depth
WITH p, reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
RETURN length(p) AS length, weakest AS confidence,
       [i IN range(0, length(p) - 1) | {caller: nodes(p)[i].qname, callee: nodes(p)[i + 1].qname,
         line: relationships(p)[i].line,
         resolution: CASE WHEN relationships(p)[i].resolution <> 'observed' THEN relationships(p)[i].resolution
           ELSE 'observed' + CASE relationships(p)[i].via WHEN 'library' THEN ' via library' ELSE '' END
             + CASE WHEN EXISTS { MATCH (m:Module {repo: $repo})
                                  WHERE (m.path = nodes(p)[i].path AND m.hash <> relationships(p)[i].source_hash)
                                     OR (m.path = nodes(p)[i + 1].path AND m.hash <> relationships(p)[i].target_hash) }
                    THEN ' (stale)' ELSE '' END END,
         confidence: relationships(p)[i].confidence}] AS steps
ORDER BY confidence DESC
LIMIT toInteger($limit);
