// Which active decisions and knowledge items did no agent context load in the last runs on their repository?
// For each item: the agent runs on the repository since the item was last written, and whether any of them loaded it.
:param repo => 'tinyshop';
CALL () {
  MATCH (d:Decision {repo: $repo}) RETURN d
  UNION
  MATCH (d:Knowledge {repo: $repo}) RETURN d
}
WITH d
WHERE d.status IN ['proposed', 'confirmed']
CALL (d) {
  OPTIONAL MATCH (r:Run {repo: $repo})
  WHERE r.started_at >= d.updated_at
  RETURN count(r) AS runs, count(CASE WHEN EXISTS { (r)-[:LOADED]->(d) } THEN 1 END) AS loaded
}
RETURN d.id AS id, runs, loaded
ORDER BY id;
