// Which observed tests live in these test files?
:param repo => 'flask';
:param paths => ['tests/test_basic.py'];
UNWIND $paths AS path
MATCH (t:ObservedTest {repo: $repo, path: path})
RETURN t.key AS key, t.nodeid AS test;
