// How is this database, as Neo4j itself sees it: online or not, writable or read-only, and Neo4j's reason when it
// is unhealthy (a database Neo4j gave up on, e.g. after a full disk, stays listed online with the reason here).
// Run against the `system` database (in Browser: `:use system`).
:param name => 'neo4j';
SHOW DATABASES YIELD name, currentStatus, access, statusMessage
WHERE name = $name
RETURN name, currentStatus AS status, access, statusMessage AS message;
