// Which decisions and knowledge items may no longer be true? Active items whose target changed since they were
// recorded (stale: the hash on the ABOUT edge differs from the code's hash now) or is gone from the graph
// (orphaned: the item still names it), with the command that settles each.
:params {repo: 'tinyshop'}
CALL () {
  MATCH (d:Decision {repo: $repo}) RETURN d
  UNION
  MATCH (d:Knowledge {repo: $repo}) RETURN d
}
WITH d
WHERE d.status IN ['proposed', 'confirmed']
CALL (d) {
  MATCH (d)-[a:ABOUT]->(t)
  WHERE (t:Module OR t:Symbol OR t:Document) AND (a.hash IS NULL OR a.hash <> t.hash)
  RETURN 'stale' AS finding, a.ref AS target, a.hash AS hash_then, t.hash AS hash_now
  UNION
  UNWIND [ref IN coalesce(d.about, []) WHERE NOT EXISTS { (d)-[:ABOUT {ref: ref}]->() }] AS ref
  RETURN 'orphaned' AS finding, ref AS target, null AS hash_then, null AS hash_now
}
RETURN finding, d.id AS id, d.status AS status, coalesce(d.text, d.responsibility) AS memory, target, hash_then,
       hash_now, CASE finding WHEN 'stale' THEN 'kg decisions confirm ' ELSE 'kg decisions retarget ' END + d.id
       + CASE finding WHEN 'stale' THEN '' ELSE ' --about NEW_NAME' END AS settle
ORDER BY finding DESC, target, id;
