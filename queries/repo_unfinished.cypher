// Is a repository's last ingest unfinished? One row when a bulk write started at `since` has not completed (the
// process or Neo4j died, or it is still running): its graph may hold nodes without their edges. `step`: what it was
// writing (nodes, edges or documents; null when not recorded).
:param repo => 'shop';
MATCH (r:Repo {name: $repo})
WHERE r.writing IS NOT NULL
RETURN toString(r.writing) AS since, r.root AS root, r.writing_step AS step;
