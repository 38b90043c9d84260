// modules_put for a repository the graph holds nothing of yet (a first ingest): CREATE, no lookup of a node that
// cannot exist. One row per file, so the result is what modules_put writes.
:param repo => 'flask';
:param rows => [{key: 'flask:src/flask/app.py', path: 'src/flask/app.py', qname: 'flask.app', qkey: 'flask:flask.app', package: 'src/flask', lang: 'python', loc: 1500, syntax_errors: 0, bad_encoding: false, words: 'flask app flask'}];
MATCH (r:Repo {name: $repo})
UNWIND $rows AS row
CREATE (m:Module {key: row.key})
SET m.repo = $repo, m.path = row.path, m.qname = row.qname, m.qkey = row.qkey, m.package = row.package,
    m.lang = row.lang, m.loc = row.loc, m.syntax_errors = row.syntax_errors, m.bad_encoding = row.bad_encoding,
    m.words = row.words
CREATE (r)-[:CONTAINS]->(m);
