// Create or update the ObservedTest node of each pytest node id a run executed: its outcome, the fixtures it asked for,
// and the content hash of its test file then (a different hash now means the test changed since).
:param repo => 'flask';
:param run => 'flask:20250101T120000';
:param rows => [{key: 'flask:tests/test_basic.py::test_options_work', nodeid: 'tests/test_basic.py::test_options_work', path: 'tests/test_basic.py', function: 'tests/test_basic.py::test_options_work', outcome: 'passed', fixtures: ['app', 'client'], seconds: 0.01, hash: '0123abcd'}];
UNWIND $rows AS row
MERGE (t:ObservedTest {key: row.key})
SET t.repo = $repo, t.nodeid = row.nodeid, t.path = row.path, t.function = row.function, t.outcome = row.outcome,
    t.fixtures = row.fixtures, t.seconds = row.seconds, t.hash = row.hash, t.run = $run;
