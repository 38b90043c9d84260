// Mark decision $old superseded by decision $new, if $old is still at the version the caller read (as in
// memory/item_update): keeps the old state as a (:Revision), links (new)-[:SUPERSEDES]->(old) and settles any
// conflict between the two. Returns no row when someone else changed $old first.
:param old => 'dec-0123456789ab';
:param new => 'dec-ba9876543210';
:param version => 1;
:param author => 'Jane Doe';
MATCH (d:Decision {id: $old})
MATCH (n:Decision {id: $new})
SET d._memory_lock = true
WITH d, n, d.version = $version AS fresh
REMOVE d._memory_lock
WITH d, n
WHERE fresh
CREATE (d)-[:REVISED]->(r:Revision)
SET r = properties(d), r.key = d.id + '@' + toString(d.version), r.of = d.id
SET d.status = 'superseded', d.version = d.version + 1, d.updated_at = datetime(), d.updated_by = $author
MERGE (n)-[:SUPERSEDES]->(d)
WITH d, n
CALL (d, n) {
  MATCH (n)-[c:CONFLICTS_WITH]-(d)
  SET c.settled = true, c.settled_by = $author, c.settled_at = datetime()
}
RETURN d.version AS version;
