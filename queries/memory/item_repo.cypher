// Which repository does this decision or knowledge item belong to (and does it exist)?
:param id => 'dec-0123456789ab';
CALL () {
  MATCH (d:Decision {id: $id}) RETURN d
  UNION
  MATCH (d:Knowledge {id: $id}) RETURN d
}
RETURN d.repo AS repo, d.version AS version;
