// Decisions and module knowledge of a repository, each with its targets (the hash recorded then and the hash
// now), its conflicts and what it supersedes. $ids, $paths (of the targets) and $statuses narrow it; null is all.
// With $paths, an agent plan's decisions about nothing in particular come too when $plan names that plan.
:param repo => 'tinyshop';
:param ids => null;
:param paths => null;
:param statuses => null;
:param plan => null;
CALL () {
  MATCH (d:Decision {repo: $repo}) RETURN d
  UNION
  MATCH (d:Knowledge {repo: $repo}) RETURN d
}
WITH d
WHERE ($ids IS NULL OR d.id IN $ids) AND ($statuses IS NULL OR d.status IN $statuses)
  AND ($paths IS NULL OR any(ref IN coalesce(d.about, []) + coalesce(d.pending, [])
                             WHERE split(ref, '#')[0] IN $paths)
       OR (d.plan = $plan AND size(coalesce(d.about, [])) = 0 AND size(coalesce(d.pending, [])) = 0))
CALL (d) {
  OPTIONAL MATCH (d)-[a:ABOUT]->(t)
  WHERE t:Module OR t:Symbol OR t:Document
  RETURN collect(CASE WHEN t IS NULL THEN null ELSE {ref: a.ref, hash_then: a.hash, hash_now: t.hash,
                 kind: coalesce(t.kind, CASE WHEN t:Document THEN 'document' ELSE 'module' END),
                 line: t.start_line} END) AS targets
}
CALL (d) {
  OPTIONAL MATCH (d)-[c:CONFLICTS_WITH]-(o)
  RETURN collect(CASE WHEN o IS NULL THEN null ELSE {id: o.id, status: o.status, text: o.text, kind: c.kind,
                 reason: c.reason, score: c.score, settled: coalesce(c.settled, false),
                 flagged_by: startNode(c) = d} END) AS conflicts
}
CALL (d) {
  OPTIONAL MATCH (d)-[:SUPERSEDES]->(old)
  RETURN collect(old.id) AS supersedes
}
CALL (d) {
  OPTIONAL MATCH (new)-[:SUPERSEDES]->(d)
  RETURN collect(new.id) AS superseded_by
}
RETURN CASE WHEN d:Decision THEN 'decision' ELSE 'knowledge' END AS type, properties(d) AS props, targets,
       conflicts, supersedes, superseded_by
ORDER BY props.created_at, props.id;
