// The memory index of a repository: each file with active decisions or knowledge, its recorded responsibility and
// how many decisions (and how many still unverified). An agent's context lists it before loading any item in full.
:param repo => 'tinyshop';
:param threshold => 0.8;
:param limit => 40;
CALL () {
  MATCH (d:Decision {repo: $repo}) RETURN d
  UNION
  MATCH (d:Knowledge {repo: $repo}) RETURN d
}
WITH d
WHERE d.status IN ['proposed', 'confirmed']
UNWIND [ref IN coalesce(d.about, []) + coalesce(d.pending, []) | split(ref, '#')[0]] AS path
WITH DISTINCT path, d
WITH path,
     [x IN collect(d) WHERE x:Knowledge AND coalesce(x.responsibility, '') <> '' | x.responsibility] AS said,
     [x IN collect(d) WHERE x:Decision] AS decisions
RETURN path, head(said) AS responsibility, size(decisions) AS decisions,
       size([x IN decisions WHERE x.status = 'proposed' OR x.confidence < $threshold]) AS unverified
ORDER BY path
LIMIT $limit;
