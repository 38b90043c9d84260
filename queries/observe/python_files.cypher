// Which Python files of a repository does the graph hold, with the content hash each was last ingested at? The
// files `kg observe` traces, and what it checks the working tree against before it runs anything.
:param repo => 'flask';
MATCH (m:Module {repo: $repo, lang: 'python'})
RETURN m.path AS path, m.hash AS hash
ORDER BY path;
