// The open transactions of earlier `kg ingest` runs of a repository from this machine (kg labels its ingest
// writes with tx metadata: kg_ingest = the repository, host, pid). Asked by a run that holds the repository's
// ingest lock, so their processes are gone: a killed run's transaction stays open until Neo4j notices (an
// explicit Query API transaction only after its idle timeout) and holds its locks until then. http_tx: the Query
// API's id of an explicit transaction, which rolls it back (DELETE /tx/<id>).
:param repo => 'flask';
:param host => 'localhost';
SHOW TRANSACTIONS
YIELD transactionId, metaData, status
WHERE metaData.kg_ingest = $repo AND metaData.host = $host AND NOT status STARTS WITH 'Terminated'
RETURN transactionId AS id, metaData.pid AS pid, metaData.http_tx AS http_tx;
