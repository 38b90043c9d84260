// Which repository does each of these decision or knowledge ids belong to (ids the graph lacks give no row)?
:param ids => ['dec-0123456789ab'];
UNWIND $ids AS id
CALL (id) {
  MATCH (d:Decision {id: id}) RETURN d
  UNION
  MATCH (d:Knowledge {id: id}) RETURN d
}
RETURN d.id AS id, d.repo AS repo, d.version AS version;
