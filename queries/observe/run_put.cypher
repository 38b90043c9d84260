// Record one `kg observe` run: what ran, with which Python and tracer, and how the tests came out.
:param repo => 'flask';
:param run => {id: 'flask:20250101T120000', command: 'python -m pytest', python: '3.11.7', tracer: 'settrace', mode: 'full', exit_status: 1, tests: 482, passed: 478, failed: 4, errors: 0, skipped: 2, seconds: 12.5};
MERGE (r:ObservedRun {id: $run.id})
SET r += $run, r.repo = $repo, r.at = datetime();
