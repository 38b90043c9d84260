// Which tests ran these symbols when the suite was observed (`kg observe`)? Every observed test with a COVERS edge
// to one of them or to what they define (a class's methods, a module's symbols), and every test under a scope
// that ran one (a project module's import counts for every test, what a test module's own body runs while it is
// imported for that module's tests, a wider-scoped fixture's setup for the tests using it).
// `stale`: every COVERS behind the answer was recorded when its file, or the target's, had other content than the
// graph holds now. A memoized function also counts as run by the tests that ran its callers (a cache hit runs no code), and
// any function as run by the tests that ran test code (tests, fixtures, conftest helpers) calling it.
// `test` is the pytest node id (with parameters), `function` the same without them.
:params {repo: 'tinyshop', qnames: ['shop.pricing.bulk_discount']};
UNWIND $qnames AS qname
CALL (qname) {
  MATCH (s:Symbol {key: $repo + ':' + qname})
  RETURN s AS root
  UNION
  MATCH (m:Module {qkey: $repo + ':' + qname})
  RETURN m AS root
}
MATCH (root)-[:DEFINES]->{0,4}(target)
WITH DISTINCT target
// The target's own file changed since the suite ran it: every row that reaches it is stale, also through a seed
// whose own file did not change (a test calling it directly was never stale before).
OPTIONAL MATCH (home:Module {repo: $repo, path: target.path})
WITH target, EXISTS { MATCH (target)<-[run:COVERS]-() WHERE home IS NULL OR home.hash <> run.hash } AS changed
CALL (target) {
  RETURN target AS seed, '' AS why
  UNION
  // A memoized function (@lru_cache, @cache, @cached_property) runs only on a cache miss, so a test may call it
  // without running it: the tests that ran one of its callers count too.
  WITH target
  WHERE EXISTS { MATCH (target)<-[:DEFINES]-()-[d:CALLS]->(e:External)
                 WHERE target.start_line <= d.line <= target.end_line
                   AND e.name =~ '(.*\\.)?(lru_cache|cache|cached_property)' }
  MATCH (target)<-[:CALLS]-(seed)
  WHERE seed <> target AND NOT seed:External
  RETURN seed, ' (a caller of memoized ' + target.name + ')' AS why
  UNION
  // Test code (a test, a fixture, a conftest helper) that calls the function but did not run it in a test may still
  // run it when an earlier test breaks: a fixture's teardown that pops what a test left behind runs the pop only
  // after a test that failed to pop. So a test that ran test code with a sure static call to the function counts.
  WITH target
  MATCH (target)<-[c:CALLS WHERE c.resolution <> 'observed' AND c.confidence >= 1.0]-(seed)
  WHERE seed <> target AND (seed:Function OR seed:Method)
    AND seed.path =~ '(.*/)?(tests?/.*|test_[^/]*\\.py|[^/]*_test\\.py|conftest\\.py)'
  RETURN seed, ' (test code calling ' + target.name + ')' AS why
}
WITH seed, min(why) AS why, true IN collect(changed) AS changed
MATCH (seed)<-[c:COVERS]-(holder)
OPTIONAL MATCH (module:Module {repo: $repo, path: seed.path})
WITH seed, why, holder, c, changed OR module IS NULL OR module.hash <> c.hash AS stale
CALL (holder, seed, why) {
  WITH holder, seed, why WHERE holder:ObservedTest
  RETURN holder AS test, 'ran ' + coalesce(seed.qname, seed.path) + why AS how
  UNION
  WITH holder, seed, why WHERE holder:TestScope
  MATCH (test:ObservedTest {repo: $repo})
  WHERE (holder.prefix = '' OR test.nodeid = holder.prefix OR test.nodeid STARTS WITH holder.prefix + '::'
         OR test.nodeid STARTS WITH holder.prefix + '/')
    AND (holder.fixture IS NULL OR holder.fixture IN test.fixtures)
  RETURN test, 'ran ' + coalesce(seed.qname, seed.path) + why +
               CASE WHEN holder.fixture IS NOT NULL THEN ' in fixture ' + holder.fixture
                    WHEN holder.prefix = '' THEN ' at import or collection (counts for every test)'
                    ELSE ' while importing ' + holder.prefix END AS how
}
WITH test, sum(c.count) AS calls, min(how) AS how, all(s IN collect(stale) WHERE s) AS stale
RETURN test.nodeid AS test, test.function AS function, test.outcome AS outcome, calls, stale, how
ORDER BY stale, calls DESC, test;
