// Create or update a TestScope: code that ran outside any one test, while collecting `prefix` ('' = the whole
// session, imports included) or setting up the wider-scoped fixture `fixture` defined at `prefix`.
:param repo => 'flask';
:param run => 'flask:20250101T120000';
:param rows => [{key: 'flask:scope:tests/test_basic.py|', prefix: 'tests/test_basic.py', fixture: null}];
UNWIND $rows AS row
MERGE (s:TestScope {key: row.key})
SET s.repo = $repo, s.prefix = row.prefix, s.fixture = row.fixture, s.run = $run;
