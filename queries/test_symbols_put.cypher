// Test helper: put bare Symbol nodes. Not used by kg itself.
:param rows => [{key: 'r:pkg.mod.f', name: 'f', qname: 'pkg.mod.f', doc: ''}];
UNWIND $rows AS row
MERGE (s:Symbol {key: row.key})
SET s.name = row.name, s.qname = row.qname, s.doc = row.doc;
