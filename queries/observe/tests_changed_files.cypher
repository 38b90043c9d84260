// Which observed tests live in a file that changed (or vanished) since they were observed? Each with its file and
// whether the file is still in the graph.
:param repo => 'flask';
MATCH (t:ObservedTest {repo: $repo})
OPTIONAL MATCH (m:Module {repo: $repo, path: t.path})
WITH t, m WHERE m IS NULL OR m.hash <> t.hash
RETURN t.key AS key, t.nodeid AS test, t.path AS path, m IS NOT NULL AS exists
ORDER BY test;
