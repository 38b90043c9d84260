// What has been decided about a module, and does it still hold? Every decision and knowledge item about the module
// or one of its symbols: status, what it says, which target, whether that code changed since it was recorded
// (stale), who wrote it and when. Confirmed first; proposed ones are unverified.
:params {repo: 'tinyshop', path: 'shop/cart.py'}
CALL () {
  MATCH (t:Module {repo: $repo, path: $path}) RETURN t
  UNION
  MATCH (t:Symbol {repo: $repo, path: $path}) RETURN t
}
MATCH (d)-[a:ABOUT]->(t)
WHERE d:Decision OR d:Knowledge
RETURN d.id AS id, CASE WHEN d:Decision THEN 'decision' ELSE 'knowledge' END AS type, d.status AS status,
       coalesce(d.text, d.responsibility) AS memory, coalesce(t.qname, t.path) AS about,
       a.hash IS NULL OR a.hash <> t.hash AS stale, d.confidence AS confidence, d.author AS author,
       d.updated_at AS updated_at
ORDER BY CASE status WHEN 'confirmed' THEN 0 WHEN 'proposed' THEN 1 ELSE 2 END, updated_at DESC;
