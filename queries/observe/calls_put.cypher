// Observed CALLS between the repository's nodes: `resolution: 'observed'`, confidence 1.0, `via` 'direct' or
// 'library' (library frames in between), the calls counted by the run that last saw the edge, and the content and
// own-text hashes of both ends then. One relationship per (caller, callee, via), apart from the static edges.
:param run => 'flask:20250101T120000';
:param rows => [{source: 'flask:tests.test_basic.test_options_work', target: 'flask:flask.app.Flask.__call__', via: 'library', count: 2, source_hash: '0123', target_hash: '4567', source_text: '89ab', target_text: 'cdef'}];
UNWIND $rows AS row
OPTIONAL MATCH (ss:Symbol {key: row.source})
OPTIONAL MATCH (sm:Module {key: row.source})
OPTIONAL MATCH (ts:Symbol {key: row.target})
OPTIONAL MATCH (tm:Module {key: row.target})
WITH row, coalesce(ss, sm) AS src, coalesce(ts, tm) AS dst
WHERE src IS NOT NULL AND dst IS NOT NULL
MERGE (src)-[r:CALLS {resolution: 'observed', via: row.via}]->(dst)
SET r.confidence = 1.0, r.count = row.count, r.source_hash = row.source_hash, r.target_hash = row.target_hash,
    r.source_text = row.source_text, r.target_text = row.target_text, r.run = $run;
