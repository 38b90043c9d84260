// End the transactions queries/ingest/orphans.cypher found: Neo4j rolls them back and frees their locks.
:param ids => ['neo4j-transaction-12'];
TERMINATE TRANSACTIONS $ids;
