// Which observed tests ran any of these nodes? Tests with a COVERS edge to one of them, and every test under a
// scope (collection or a wider-scoped fixture it uses) that ran one: what `kg observe --changed` runs again.
:param repo => 'flask';
:param keys => ['flask:flask.app.Flask.wsgi_app'];
UNWIND $keys AS key
CALL (key) {
  MATCH (n:Symbol {key: key}) RETURN n
  UNION
  MATCH (n:Module {key: key}) RETURN n
}
MATCH (n)<-[:COVERS]-(holder)
CALL (holder) {
  WITH holder WHERE holder:ObservedTest
  RETURN holder.nodeid AS test
  UNION
  WITH holder WHERE holder:TestScope
  MATCH (t:ObservedTest {repo: $repo})
  WHERE (holder.prefix = '' OR t.nodeid = holder.prefix OR t.nodeid STARTS WITH holder.prefix + '::'
         OR t.nodeid STARTS WITH holder.prefix + '/')
    AND (holder.fixture IS NULL OR holder.fixture IN t.fixtures)
  RETURN t.nodeid AS test
}
RETURN DISTINCT test
ORDER BY test;
