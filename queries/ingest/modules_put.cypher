// Create or update the Module node of each code file. The content hash is set last (files_mark), so a write that
// dies half way leaves the file marked as not yet ingested. package is the file's folder ('.' at the root): the
// unit architecture review collapses modules into.
:param repo => 'flask';
:param rows => [{key: 'flask:src/flask/app.py', path: 'src/flask/app.py', qname: 'flask.app', qkey: 'flask:flask.app', package: 'src/flask', lang: 'python', loc: 1500, syntax_errors: 0, bad_encoding: false, words: 'flask app flask'}];
MATCH (r:Repo {name: $repo})
UNWIND $rows AS row
MERGE (m:Module {key: row.key})
SET m.repo = $repo, m.path = row.path, m.qname = row.qname, m.qkey = row.qkey, m.package = row.package,
    m.lang = row.lang, m.loc = row.loc, m.syntax_errors = row.syntax_errors, m.bad_encoding = row.bad_encoding,
    m.words = row.words
MERGE (r)-[:CONTAINS]->(m);
