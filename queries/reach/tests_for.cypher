// Which tests exercise what a walk reached? `kg tests-for` walks back along static CALLS from the symbols asked
// about, their definitions and the base methods they override, and from the base methods of overriding methods on
// the way (kg/navigate/reach.py); $reached holds every node it met (element id, `depth`, chain strength
// `weakest`). A test counts when it is one of them (a test function or method, named test*, in a file under a
// tests/ or test/ folder, or named test_*.py, *_test.py, *_test.go), or when what reached is a pytest fixture it
// takes as a parameter (a function decorated with `*.fixture`, in its folder or above), or module-level code of its
// own test file (which runs when the file is imported), or an object its decorator builds
// (`@pytest.mark.parametrize(..., [IntRange(0, 5)])`) whose class or a base class has a method that was reached.
// `test` is the pytest node id. Static evidence only: tests_for_observed answers from `kg observe`'s data.
:params {reached: [], limit: 200};
UNWIND $reached AS hit
MATCH (reacher) WHERE elementId(reacher) = hit.id
WITH reacher, min(hit.depth) AS depth, max(hit.weakest) AS weakest
CALL (reacher, depth, weakest) {
  WITH reacher WHERE reacher:Symbol AND toLower(reacher.name) STARTS WITH 'test' AND reacher.kind IN ['function', 'method']
  RETURN reacher AS test, depth AS distance, weakest AS confidence, 'calls' AS how
  UNION
  WITH reacher WHERE reacher:Module
  MATCH (reacher)-[:DEFINES]->{1,2}(test:Symbol)
  WHERE toLower(test.name) STARTS WITH 'test' AND test.kind IN ['function', 'method']
  RETURN test, depth + 1 AS distance, weakest AS confidence, 'module-level code of ' + reacher.path AS how
  UNION
  WITH reacher WHERE reacher:Function OR reacher:Method
  MATCH (scope)-[:DEFINES]->(reacher), (scope)-[d:CALLS]->(decorator)
  WHERE reacher.start_line <= d.line <= reacher.end_line AND coalesce(decorator.name, '') ENDS WITH 'fixture'
  WITH reacher, left(reacher.path, size(reacher.path) - size(last(split(reacher.path, '/')))) AS folder
  MATCH (test:Symbol {repo: reacher.repo})
  WHERE test.path STARTS WITH folder AND toLower(test.name) STARTS WITH 'test' AND test.kind IN ['function', 'method']
    AND test.signature =~ ('(?s).*[(,]\\s*' + reacher.name + '\\s*[,:)=].*')
  RETURN test, depth + 1 AS distance, weakest AS confidence, 'fixture ' + reacher.name AS how
  UNION
  WITH reacher WHERE reacher:Method
  MATCH (cls:Class)-[:DEFINES]->(reacher)
  MATCH (cls)-[:INHERITS]->{0,5}(:Class)-[:DEFINES]->{0,1}(built:Symbol)<-[d:CALLS]-(scope)-[:DEFINES]->(test:Symbol)
  WHERE (built:Class OR built.name = '__init__') AND test.start_line <= d.line <= test.end_line
    AND toLower(test.name) STARTS WITH 'test' AND test.kind IN ['function', 'method']
  RETURN test, depth + 1 AS distance, weakest AS confidence, 'its decorator builds a ' + cls.name AS how
}
WITH test, distance, confidence, how
WHERE test.path =~ '(.*/)?(tests?/.*|test_[^/]*\\.py|[^/]*_test\\.(py|go))'
ORDER BY distance, confidence DESC
WITH test, collect({distance: distance, confidence: confidence, how: how})[0] AS best
MATCH (module:Module {repo: test.repo, path: test.path})
RETURN test.path + '::' + replace(substring(test.qname, size(module.qname) + 1), '.', '::') AS test,
       test.qname AS qname, best.distance AS distance, best.confidence AS confidence, best.how AS how
ORDER BY distance, confidence DESC, test
LIMIT toInteger($limit);
