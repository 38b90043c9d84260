// What did `kg observe` record about these test functions (pytest node ids without parameters) and their files?
// A row per observed test under one of $functions (`test` set), and a row per file of $paths with observed tests
// (`test` null): its outcome, and whether its test file changed since it was observed (`file_stale`).
:params {repo: 'tinyshop', functions: ['tests/test_cart.py::test_bulk_discount'], paths: ['tests/test_cart.py']};
UNWIND $functions AS function
MATCH (t:ObservedTest {repo: $repo, function: function})
OPTIONAL MATCH (m:Module {repo: $repo, path: t.path})
RETURN t.nodeid AS test, t.function AS function, t.path AS path, t.outcome AS outcome,
       m IS NULL OR m.hash <> t.hash AS file_stale
UNION ALL
UNWIND $paths AS path
MATCH (t:ObservedTest {repo: $repo, path: path})
OPTIONAL MATCH (m:Module {repo: $repo, path: path})
WITH path, collect(m IS NULL OR m.hash <> t.hash) AS stale
RETURN null AS test, null AS function, path, null AS outcome, any(s IN stale WHERE s) AS file_stale;
