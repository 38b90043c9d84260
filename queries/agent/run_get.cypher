// One run with everything needed to show or resume it.
:param id => 'run-20260101-120000-ab12';
MATCH (r:Run {id: $id})-[:FOLLOWS]->(p:Plan)
RETURN r {.*, started_at: toString(r.started_at), updated_at: toString(r.updated_at)} AS run, p.id AS plan;
