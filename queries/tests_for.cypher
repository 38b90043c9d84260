// Which tests exercise these symbols? Test functions and methods (named test*, in a file under a tests/ or test/
// folder, or named test_*.py, *_test.py, *_test.go) that reach one of them through CALLS within $depth steps
// (capped at 10; a class counts with its methods). Calls resolve to the method a static reading finds, so
// dispatch is followed too: when a method on the way overrides a base method, what calls the base method counts
// (at the symbol itself and at up to two overriding methods further up the chain). A test also counts when what reaches the symbol is a pytest
// fixture it takes as a parameter (a function decorated with `*.fixture`, in its folder or above), or module-level
// code of its own test file (which runs when the file is imported), or an object its decorator builds
// (`@pytest.mark.parametrize(..., [IntRange(0, 5)])`) whose class or a base class has a method that reaches the
// symbol. `test` is the pytest node id. Static evidence only: observed CALLS (`kg observe`) are left out here;
// tests_for_observed answers from them.
:param repo => 'tinyshop';
:param qnames => ['shop.pricing.bulk_discount'];
:param depth => 8;
:param limit => 200;
MATCH (root:Symbol) WHERE root.key IN [q IN $qnames | $repo + ':' + q]
MATCH (root)-[:DEFINES]->{0,4}(seed)
OPTIONAL MATCH (seed)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(base:Method)
WHERE base.name = seed.name
WITH collect(DISTINCT seed) + collect(DISTINCT base) AS starts
CALL (starts) {
  UNWIND starts AS start
  MATCH p = ANY SHORTEST (start)<-[r:CALLS WHERE r.resolution <> 'observed']-{0,10}(reacher)
  WHERE length(p) <= $depth
  WITH reacher, min(length(p)) AS depth, max(reduce(w = 1.0, e IN relationships(p) |
       CASE WHEN e.confidence < w THEN e.confidence ELSE w END)) AS weakest
  RETURN collect({node: reacher, depth: depth, weakest: weakest}) AS round1
}
CALL (round1) {
  WITH [h IN round1 | h.node] AS known
  UNWIND round1 AS hit
  WITH hit.node AS method, hit.depth AS reached_at, hit.weakest AS reached_weakest, known
  WHERE method:Method AND method.name <> '__init__'
  MATCH (method)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(base:Method)
  WHERE base.name = method.name AND NOT base IN known
  WITH base, min(reached_at) AS base_depth, max(reached_weakest) AS base_weakest
  MATCH p = ANY SHORTEST (base)<-[r:CALLS WHERE r.resolution <> 'observed']-{0,10}(reacher)
  WHERE base_depth + length(p) <= $depth
  WITH reacher, min(base_depth + length(p)) AS depth, max(reduce(w = base_weakest, e IN relationships(p) |
       CASE WHEN e.confidence < w THEN e.confidence ELSE w END)) AS weakest
  RETURN collect({node: reacher, depth: depth, weakest: weakest}) AS round2
}
CALL (round1, round2) {
  WITH [h IN round1 + round2 | h.node] AS known
  UNWIND round2 AS hit
  WITH hit.node AS method, hit.depth AS reached_at, hit.weakest AS reached_weakest, known
  WHERE method:Method AND method.name <> '__init__'
  MATCH (method)<-[:DEFINES]-(:Class)-[:INHERITS]->{1,5}(:Class)-[:DEFINES]->(base:Method)
  WHERE base.name = method.name AND NOT base IN known
  WITH base, min(reached_at) AS base_depth, max(reached_weakest) AS base_weakest
  MATCH p = ANY SHORTEST (base)<-[r:CALLS WHERE r.resolution <> 'observed']-{0,10}(reacher)
  WHERE base_depth + length(p) <= $depth
  WITH reacher, min(base_depth + length(p)) AS depth, max(reduce(w = base_weakest, e IN relationships(p) |
       CASE WHEN e.confidence < w THEN e.confidence ELSE w END)) AS weakest
  RETURN collect({node: reacher, depth: depth, weakest: weakest}) AS round3
}
UNWIND round1 + round2 + round3 AS hit
WITH hit.node AS reacher, min(hit.depth) AS depth, max(hit.weakest) AS weakest
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
