// Which functions and methods of a repository did the observed tests run, outside the test files themselves? Each
// with how many observed tests (or scopes) ran it: the candidates for fault injection (bench/faults.py).
:param repo => 'flask';
MATCH (s:Symbol {repo: $repo})<-[:COVERS]-(h)
WHERE s.kind IN ['function', 'method']
  AND NOT s.path =~ '(.*/)?(tests?/.*|test_[^/]*\\.py|[^/]*_test\\.py|conftest\\.py)'
RETURN s.qname AS qname, s.path AS path, s.start_line AS line, count(h) AS holders
ORDER BY qname;
