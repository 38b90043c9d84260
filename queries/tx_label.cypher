// Label the current write transaction so SHOW TRANSACTIONS tells whose it is (kg.ingest.lock ends the
// transactions a killed `kg ingest` left open). The driver sets the same metadata when it begins a transaction; an
// explicit Query API transaction has no such field, so it runs this first.
:param meta => {kg_ingest: 'flask', host: 'localhost', pid: 12345};
CALL tx.setMetaData($meta);
