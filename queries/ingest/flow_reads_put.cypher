// Which argument flows (`pkg.mod.func#param`: what call sites pass to that parameter) the edges of each file were
// resolved with: when those flows change, the file is resolved again (ingest/project.py). Written with the edges.
:param rows => [{key: 'flask:src/flask/app.py', reads: ['flask.app.Flask.wsgi_app#environ']}];
UNWIND $rows AS row
MATCH (m:Module {key: row.key})
SET m.flow_reads = row.reads;
