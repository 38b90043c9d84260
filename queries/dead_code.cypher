// What is defined but never used? Functions, methods and classes of a repository that nothing outside their own
// body calls, imports or subclasses (a class also counts as used when one of its methods is), and that are not
// entry points: dunder methods, test functions and Test classes, code in `__main__.py`, names listed in the
// module's `__all__`, definitions with a decorator that registers them (route handlers, fixtures, CLI commands;
// `@staticmethod`, `@classmethod` and `@property` do not count) and methods that override a method of a project
// base class. status `dead`: nothing points at it. status `maybe`: nothing resolved points at it, but its name is
// the target of an unresolved (`<unresolved>.name`) or dynamic call, it is nested in a function (may be returned),
// a subclass overrides it, or its class has a base outside the repository (may override it).
:param repo => 'shop';
:param limit => 100;
CALL () {
  MATCH ()-[r:CALLS {resolution: 'dynamic'}]->(e:External)
  RETURN collect(DISTINCT e.name) AS dynamic_targets
}
MATCH (s:Symbol {repo: $repo})
WHERE s.kind IN ['function', 'method', 'class']
  AND NOT EXISTS {
    MATCH (s)<-[:CALLS|IMPORTS|INHERITS]-(c)
    WHERE NOT (c.path = s.path AND coalesce(c.start_line, 0) >= s.start_line AND coalesce(c.end_line, 0) <= s.end_line)
  }
  AND NOT (s.kind = 'class' AND EXISTS {
    MATCH (s)-[:DEFINES]->(:Symbol)<-[:CALLS|IMPORTS]-(c)
    WHERE NOT (c.path = s.path AND coalesce(c.start_line, 0) >= s.start_line AND coalesce(c.end_line, 0) <= s.end_line)
  })
  AND NOT (s.name STARTS WITH '__' AND s.name ENDS WITH '__')
  AND NOT s.path ENDS WITH '__main__.py'
  AND NOT (s.path =~ '(.*/)?(tests?/.*|test_[^/]*\\.py|[^/]*_test\\.(py|go)|conftest\\.py)'
           AND toLower(s.name) STARTS WITH 'test')
OPTIONAL MATCH (parent)-[:DEFINES]->(s)
WITH s, parent, dynamic_targets
WHERE NOT EXISTS {
    MATCH (v:Symbol {repo: s.repo, path: s.path, name: '__all__'})
    WHERE v:Variable AND v.signature CONTAINS ('"' + s.name + '"') OR v.signature CONTAINS ("'" + s.name + "'")
  }
  AND NOT EXISTS {
    MATCH (parent)-[d:CALLS]->(decorator)
    WHERE s.start_line <= d.line <= s.end_line
      AND NOT decorator.name IN ['<builtin>.staticmethod', '<builtin>.classmethod', '<builtin>.property']
  }
  AND NOT EXISTS { MATCH (parent:Class)-[:INHERITS]->{1,6}(:Class)-[:DEFINES]->(:Method {name: s.name}) }
WITH s, CASE
    WHEN EXISTS { MATCH (e:External {name: '<unresolved>.' + s.name}) }
      THEN 'its name is the target of an unresolved call'
    WHEN any(t IN dynamic_targets WHERE t ENDS WITH '.' + s.name)
      THEN 'its name is the target of a dynamic call'
    WHEN parent:Function OR parent:Method
      THEN 'nested in a function: may be returned or registered'
    WHEN s.kind = 'method' AND EXISTS { MATCH (parent)<-[:INHERITS]-{1,6}(:Class)-[:DEFINES]->(:Method {name: s.name}) }
      THEN 'a subclass overrides it: may be called through the subclass'
    WHEN s.kind = 'method' AND EXISTS { MATCH (parent)-[:INHERITS]->{1,6}(:External) }
      THEN 'its class has a base outside the repository: may override it'
  END AS why_maybe
RETURN CASE WHEN why_maybe IS NULL THEN 'dead' ELSE 'maybe' END AS status, s.qname AS symbol, s.kind AS kind,
       s.path AS path, s.start_line AS line, s.end_line - s.start_line + 1 AS lines, why_maybe AS note
ORDER BY status, path, line
LIMIT $limit;
