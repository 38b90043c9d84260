// Which repositories have project memory, and how many items each?
CALL () {
  MATCH (d:Decision) RETURN d
  UNION
  MATCH (d:Knowledge) RETURN d
}
RETURN d.repo AS repo, count(*) AS items
ORDER BY repo;
