// symbols_put for a repository the graph holds nothing of yet (a first ingest): CREATE, one row per key. Rows
// sharing a key (a name defined twice) are folded in kg.ingest.writer first, into the properties of the last and
// the labels symbols_put would have left (`labels`: the kind labels, and Test).
:param repo => 'flask';
:param rows => [{key: 'flask:flask.app.Flask', path: 'src/flask/app.py', qname: 'flask.app.Flask', name: 'Flask', kind: 'class', labels: ['Class'], start_line: 100, end_line: 900, signature: 'class Flask(App)', doc: 'The flask object.', hash: '0123456789abcdef', words: 'flask app The flask object.'}];
UNWIND $rows AS row
CREATE (s:Symbol {key: row.key})
SET s.repo = $repo, s.path = row.path, s.qname = row.qname, s.name = row.name, s.kind = row.kind,
    s.start_line = row.start_line, s.end_line = row.end_line, s.signature = row.signature, s.doc = row.doc,
    s.hash = row.hash, s.words = row.words
SET s:$(row.labels);
