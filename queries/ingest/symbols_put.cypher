// Create or update symbols; the kind label (Class, Function, Method, Variable) follows the symbol's current kind.
// A test function or method also gets :Test (for Browser's colours; a symbol's key includes its file and name,
// so only a change of kind can change whether it is one). `hash` is the content hash of the symbol's own source
// lines (ingest.walk.span_hash), which project memory compares with the one a decision recorded. One row per key
// (kg.ingest.writer folds rows sharing one): `labels` to add, `first_kind` the kind of the first of the folded rows,
// `reset` whether the kind changed between them.
:param repo => 'flask';
:param rows => [{key: 'flask:flask.app.Flask', path: 'src/flask/app.py', qname: 'flask.app.Flask', name: 'Flask', kind: 'class', labels: ['Class'], first_kind: 'class', reset: false, start_line: 100, end_line: 900, signature: 'class Flask(App)', doc: 'The flask object.', hash: '0123456789abcdef', words: 'flask app The flask object.'}];
UNWIND $rows AS row
MERGE (s:Symbol {key: row.key})
// Only a symbol whose kind changed loses its old kind label (removing labels on every row costs twice the write).
FOREACH (_ IN CASE WHEN s.kind IS NOT NULL AND (s.kind <> row.first_kind OR row.reset) THEN [1] ELSE [] END |
  REMOVE s:Class:Function:Method:Variable:Test)
SET s.repo = $repo, s.path = row.path, s.qname = row.qname, s.name = row.name, s.kind = row.kind,
    s.start_line = row.start_line, s.end_line = row.end_line, s.signature = row.signature, s.doc = row.doc,
    s.hash = row.hash, s.words = row.words
SET s:$(row.labels);
