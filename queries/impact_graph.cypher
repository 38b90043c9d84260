// What may break if these symbols or modules change, as a picture for Neo4j Browser? The same dependents as
// `impact` (callers, importers and subclasses up to $depth steps, capped at 10 by the pattern; a class or module
// counts with what it defines; a method stands for the base methods it overrides): for each dependent its
// strongest shortest path to what changed, returned as a path so Browser draws the blast radius; kg's Browser style
// writes each edge's confidence on it.
// $evidence: 'static' (ingest's CALLS), 'observed' (what `kg observe` saw run) or 'all'.
:params {repo: 'tinyshop', qnames: ['shop.pricing.bulk_discount'], depth: 5, min_confidence: 0.0, evidence: 'all', limit: 200};
UNWIND $qnames AS qname
CALL (qname) {
  MATCH (s:Symbol {key: $repo + ':' + qname})
  RETURN s AS root
  UNION
  MATCH (m:Module {qkey: $repo + ':' + qname})
  RETURN m AS root
}
MATCH (root)-[:DEFINES]->{0,4}(changed)
OPTIONAL MATCH (changed)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(overridden:Method)
WHERE overridden.name = changed.name
WITH collect(DISTINCT changed) + collect(DISTINCT overridden) AS changed
UNWIND changed AS start
MATCH p = ALL SHORTEST (start)<-[r:CALLS|IMPORTS|INHERITS WHERE r.confidence >= $min_confidence
    AND ($evidence = 'all' OR (r.resolution = 'observed') = ($evidence = 'observed'))]-{1,10}(dependent)
WHERE length(p) <= $depth AND NOT dependent IN changed
WITH dependent, p,
     reduce(w = 1.0, e IN relationships(p) | CASE WHEN e.confidence < w THEN e.confidence ELSE w END) AS weakest
ORDER BY length(p), weakest DESC
WITH dependent, collect(p)[0] AS path
RETURN path
LIMIT toInteger($limit);
