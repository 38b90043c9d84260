// Delete ObservedTest nodes (and their COVERS) of tests that are gone: not collected any more, or their file deleted.
:param rows => [{key: 'flask:tests/test_basic.py::test_gone'}];
UNWIND $rows AS row
MATCH (t:ObservedTest {key: row.key})
DETACH DELETE t;
