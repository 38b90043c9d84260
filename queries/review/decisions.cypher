// Which recorded decisions apply to these modules? Decisions ABOUT each module, or about one of the symbols it
// defines, that are not invalidated. None is a normal answer: decisions are recorded by the agent and by people.
:param repo => 'shop';
:param paths => ['shop/cart.py', 'shop/pricing.py'];
UNWIND $paths AS path
MATCH (m:Module {repo: $repo, path: path})
CALL (m) {
  MATCH (d:Decision)-[:ABOUT]->(m)
  RETURN d, null AS symbol
  UNION
  MATCH (d:Decision)-[:ABOUT]->(s:Symbol {repo: $repo, path: m.path})
  RETURN d, s.qname AS symbol
}
WITH m, d, collect(symbol) AS symbols
WHERE d.invalid_at IS NULL
RETURN m.qname AS module, m.path AS path, d.id AS id, d.text AS decision, d.rationale AS rationale,
       d.status AS status, d.confidence AS confidence, d.author AS author, toString(d.valid_from) AS since,
       [s IN symbols WHERE s IS NOT NULL] AS symbols
ORDER BY module, since, id;
