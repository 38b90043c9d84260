// Which reference modules inform a plan's files (INFORMS edges from `kg relate`), best first? Those whose planned
// file, module path or aspects contain one of the query's words come first; the rest follow by confidence.
:param plan => 'calc-1a2b3c4d';
:param words => ['cart'];
:param limit => 8;
MATCH (:Plan {id: $plan})-[:HAS_FILE]->(f:PlannedFile)<-[r:INFORMS]-(m:Module)
WITH f, r, m, size([w IN $words WHERE toLower(f.path) CONTAINS w OR toLower(m.path) CONTAINS w
                    OR any(a IN coalesce(r.aspects, []) WHERE toLower(a) CONTAINS w)]) AS hits
RETURN m.repo AS repo, m.path AS path, f.path AS planned, r.type AS type, r.confidence AS confidence,
       r.aspects AS aspects, r.suggestion AS suggestion, hits
ORDER BY hits DESC, r.confidence DESC, path
LIMIT $limit;
