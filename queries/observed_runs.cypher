// When was this repository's test suite last observed (`kg observe`), and how did it go? The latest runs first.
:params {repo: 'tinyshop', limit: 5};
MATCH (r:ObservedRun {repo: $repo})
RETURN r.id AS run, toString(r.at) AS at, r.mode AS mode, r.command AS command, r.tests AS tests,
       r.failed AS failed, r.errors AS errors, r.python AS python, r.tracer AS tracer,
       COUNT { MATCH (t:ObservedTest {repo: $repo}) } AS observed_tests
ORDER BY r.at DESC
LIMIT toInteger($limit);
