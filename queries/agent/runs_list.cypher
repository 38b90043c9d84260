// The most recent runs, newest first, with their state and progress.
:param limit => 20;
MATCH (r:Run)-[:FOLLOWS]->(p:Plan)
RETURN r {.*, started_at: toString(r.started_at), updated_at: toString(r.updated_at)} AS run, p.id AS plan, p.title AS plan_title
ORDER BY r.started_at DESC
LIMIT $limit;
