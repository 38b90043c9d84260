// Which recorded decisions apply to these modules? Decisions ABOUT each module, or about one of the symbols it
// defines, that still stand (not rejected, superseded or invalidated), with whether the code changed since the
// decision was recorded (stale) and whether a person confirmed it. None is a normal answer: decisions come from
// `kg decide`, the agent and the memory files.
:params {repo: 'tinyshop', paths: ['shop/cart.py', 'shop/pricing.py']};
UNWIND $paths AS path
MATCH (m:Module {repo: $repo, path: path})
CALL (m) {
  MATCH (d:Decision)-[a:ABOUT]->(m)
  RETURN d, a, m AS target
  UNION
  MATCH (d:Decision)-[a:ABOUT]->(s:Symbol {repo: $repo, path: m.path})
  RETURN d, a, s AS target
}
WITH m, d, collect({target: target, stale: a.hash IS NULL OR a.hash <> target.hash}) AS about
WHERE d.invalid_at IS NULL AND NOT coalesce(d.status, 'confirmed') IN ['rejected', 'superseded']
RETURN m.qname AS module, m.path AS path, d.id AS id, d.text AS decision, d.rationale AS rationale,
       d.status AS status, d.confidence AS confidence, d.author AS author,
       toString(coalesce(d.updated_at, d.created_at, d.valid_from)) AS since,
       [x IN about WHERE x.target:Symbol | x.target.qname] AS symbols, any(x IN about WHERE x.stale) AS stale
ORDER BY module, since, id;
