// Change a decision or knowledge item if it is still at the version the caller read (optimistic concurrency: the
// item's write lock is taken before its version is compared); the item as it was is kept as a (:Revision).
// $refresh records each target's hash now (a person confirmed the item holds for the code as it is) and re-attaches
// targets that are back in the graph; $targets, when not null, replaces what the item is about.
// Returns no row when someone else changed the item first: the caller merges and tries again.
:param id => 'dec-0123456789ab';
:param version => 1;
:param changes => {status: 'confirmed'};
:param author => 'Jane Doe';
:param refresh => false;
:param targets => null;
CALL () {
  MATCH (d:Decision {id: $id}) RETURN d
  UNION
  MATCH (d:Knowledge {id: $id}) RETURN d
}
SET d._memory_lock = true
WITH d, d.version = $version AS fresh
REMOVE d._memory_lock
WITH d
WHERE fresh
CREATE (d)-[:REVISED]->(r:Revision)
SET r = properties(d), r.key = d.id + '@' + toString(d.version), r.of = d.id
SET d += $changes, d.version = d.version + 1, d.updated_at = datetime(), d.updated_by = $author
WITH d
CALL (d) {
  WITH d WHERE $targets IS NOT NULL
  MATCH (d)-[a:ABOUT]->(t)
  WHERE NOT t:PlannedFile
  DELETE a
}
CALL (d) {
  WITH d WHERE $targets IS NOT NULL
  UNWIND $targets AS row
  CALL (row) {
    MATCH (t:Module {key: row.key}) WHERE row.label = 'Module' RETURN t
    UNION
    MATCH (t:Symbol {key: row.key}) WHERE row.label = 'Symbol' RETURN t
    UNION
    MATCH (t:Document {key: row.key}) WHERE row.label = 'Document' RETURN t
  }
  CREATE (d)-[:ABOUT {ref: row.ref, hash: t.hash, at: d.updated_at}]->(t)
}
CALL (d) {
  WITH d WHERE $refresh
  MATCH (d)-[a:ABOUT]->(t)
  WHERE NOT t:PlannedFile
  SET a.hash = t.hash, a.at = d.updated_at
}
CALL (d) {
  WITH d WHERE $refresh
  UNWIND [ref IN coalesce(d.about, []) WHERE NOT EXISTS { (d)-[:ABOUT {ref: ref}]->() }] AS ref
  WITH d, ref, d.repo + ':' + CASE WHEN ref CONTAINS '#' THEN split(ref, '#')[1] ELSE ref END AS key
  CALL (ref, key) {
    MATCH (t:Symbol {key: key}) WHERE ref CONTAINS '#' RETURN t
    UNION
    MATCH (t:Module {key: key}) WHERE NOT ref CONTAINS '#' RETURN t
    UNION
    MATCH (t:Document {key: key}) WHERE NOT ref CONTAINS '#' RETURN t
  }
  CREATE (d)-[:ABOUT {ref: ref, hash: t.hash, at: d.updated_at}]->(t)
}
RETURN d.version AS version;
