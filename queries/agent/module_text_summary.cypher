// A module's stored summary, for `read_file`: null fields when none was made.
:param repo => 'calc';
:param path => 'calc/ops.py';
MATCH (m:Module {repo: $repo, path: $path})
RETURN m.summary AS summary, m.summary_interface AS interface, m.summary_dependencies AS dependencies,
       m.summary_notes AS notes, m.summary_kind AS kind, m.summary_hash = m.hash AS fresh;
