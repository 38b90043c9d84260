// After a run that observed the whole suite: delete the tests, scopes and observed CALLS an earlier run left.
:param repo => 'flask';
:param run => 'flask:20250101T120000';
CALL () {
  MATCH (n:ObservedTest|TestScope {repo: $repo})
  WHERE n.run <> $run
  DETACH DELETE n
}
CALL () {
  MATCH (a)-[r:CALLS {resolution: 'observed'}]->()
  WHERE a.repo = $repo AND r.run <> $run
  DELETE r
};
