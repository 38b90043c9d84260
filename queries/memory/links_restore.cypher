// The conflict flags and supersessions of restored items (a second pass, once every item of the import exists).
:param rows => [{id: 'dec-0123456789ab', conflicts: [{with: 'dec-ba9876543210', kind: 'contradiction', reason: 'one is negated, the other is not', settled: false}], supersedes: []}];
UNWIND $rows AS row
MATCH (d:Decision {id: row.id})
CALL (d, row) {
  UNWIND row.conflicts AS c
  MATCH (o:Decision {id: c.with})
  MERGE (d)-[f:CONFLICTS_WITH]->(o)
  SET f.kind = c.kind, f.reason = c.reason, f.settled = c.settled
}
CALL (d, row) {
  UNWIND row.supersedes AS old
  MATCH (o:Decision {id: old})
  MERGE (d)-[:SUPERSEDES]->(o)
};
