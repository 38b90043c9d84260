// What is defined but never used? Functions, methods and classes of a repository that nothing outside their own
// body calls, imports or subclasses (a class also counts as used when one of its methods is), and that are not
// entry points: dunder methods, test functions and Test classes, code in `__main__.py`, names listed in the
// module's `__all__`, definitions with a decorator that registers them (route handlers, fixtures, CLI commands;
// `@staticmethod`, `@classmethod` and property decorators do not count) and methods that override a method of a
// project base class. Each row says why (`why`) and how sure kg is that it is unused (`confidence`, 0..1):
//   dead    nothing points at it, and it is not public API (a private name, a script, a test helper);
//   public  a public name of a package (a public method of a public class, a public function of a public
//           module): unused inside the project, but other projects may import it;
//   maybe   nothing resolved points at it, but its name is the target of an unresolved or dynamic call, it is
//           nested in a function (may be returned), a subclass overrides it, its class has a base outside the
//           repository (may override it), or it is a property (`property = true`: read as an attribute, which
//           the graph does not record; `kg dead-code` looks for `.name` reads in the files to decide).
:params {repo: 'tinyshop', limit: 100};
CALL () {
  MATCH ()-[r:CALLS {resolution: 'dynamic'}]->(e:External)
  RETURN collect(DISTINCT e.name) AS dynamic_targets
}
CALL () {
  MATCH (pkg:Module {repo: $repo})
  WHERE pkg.path ENDS WITH '__init__.py'
  RETURN collect(left(pkg.path, size(pkg.path) - size('__init__.py'))) AS packages
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
WITH s, parent, dynamic_targets, packages,
     [(parent)-[d:CALLS]->(decorator) WHERE s.start_line <= d.line <= s.end_line | coalesce(decorator.name,
      decorator.qname)] AS decorators
WHERE NOT EXISTS {
    MATCH (v:Symbol {repo: s.repo, path: s.path, name: '__all__'})
    WHERE v:Variable AND (v.signature CONTAINS ('"' + s.name + '"') OR v.signature CONTAINS ("'" + s.name + "'"))
  }
  AND all(d IN decorators WHERE d IN ['<builtin>.staticmethod', '<builtin>.classmethod']
          OR d ENDS WITH 'property' OR d =~ '.*\\.(setter|getter|deleter)')
  AND NOT EXISTS { MATCH (parent:Class)-[:INHERITS]->{1,6}(:Class)-[:DEFINES]->(:Method {name: s.name}) }
WITH s, parent, dynamic_targets,
     any(d IN decorators WHERE d ENDS WITH 'property' OR d =~ '.*\\.(setter|getter|deleter)') AS property,
     NOT s.path =~ '(.*/)?(tests?|testing|examples?|docs?|scripts?|bench(marks?)?)/.*'
       AND NOT s.path =~ '(.*/)?(setup|conftest|noxfile|fabfile|manage)\\.py'
       AND all(part IN split(s.qname, '.') WHERE NOT part STARTS WITH '_')
       AND NOT (parent:Function OR parent:Method)
       AND any(p IN packages WHERE s.path STARTS WITH p) AS public
WITH s, property, public, CASE
    WHEN EXISTS { MATCH (e:External {name: '<unresolved>.' + s.name}) }
      THEN ['its name is the target of an unresolved call', 0.3]
    WHEN any(t IN dynamic_targets WHERE t ENDS WITH '.' + s.name)
      THEN ['its name is the target of a dynamic call', 0.3]
    WHEN parent:Function OR parent:Method
      THEN ['nested in a function: may be returned or registered', 0.4]
    WHEN s.kind = 'method' AND EXISTS { MATCH (parent)<-[:INHERITS]-{1,6}(:Class)-[:DEFINES]->(:Method {name: s.name}) }
      THEN ['a subclass overrides it: may be called through the subclass', 0.3]
    WHEN s.kind = 'method' AND EXISTS { MATCH (parent)-[:INHERITS]->{1,6}(:External) }
      THEN ['its class has a base outside the repository: may override it', 0.3]
    WHEN property
      THEN ['a property: read as an attribute, which the graph does not record', 0.3]
  END AS maybe
WITH s, property, public, maybe,
     CASE WHEN maybe IS NOT NULL THEN 'maybe' WHEN public THEN 'public' ELSE 'dead' END AS status
RETURN status, s.qname AS symbol, s.kind AS kind, s.path AS path, s.start_line AS line,
       s.end_line - s.start_line + 1 AS lines,
       CASE status WHEN 'maybe' THEN maybe[1] WHEN 'public' THEN 0.5 ELSE 0.9 END AS confidence,
       CASE status
         WHEN 'maybe' THEN maybe[0]
         WHEN 'public' THEN 'public API: nothing inside the project uses it, other projects may'
         ELSE 'nothing in the project calls, imports or subclasses it' END AS why,
       property, public
ORDER BY CASE status WHEN 'dead' THEN 0 WHEN 'public' THEN 1 ELSE 2 END, path, line
LIMIT toInteger($limit);
