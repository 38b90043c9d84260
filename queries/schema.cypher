// The graph schema: a uniqueness constraint on every node key, lookup indexes, full-text indexes.
// Applied by `kg init` and by the first ingest; every statement is idempotent (IF NOT EXISTS).
//
// Node keys:
//   Repo.name · Module.key = "<repo>:<path>" · Symbol.key = "<repo>:<qname>" · External.name
//   Document.key = "<repo>:<path>" · Chunk.key = "<repo>:<path>#<ordinal>" · Decision.id
//   Plan.id · PlannedFile.key = "<plan>:<path>" · Run.id · Turn.key = "<run>:<n>" · LLMCall.id
CREATE CONSTRAINT repo_name IF NOT EXISTS FOR (n:Repo) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT module_key IF NOT EXISTS FOR (n:Module) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT symbol_key IF NOT EXISTS FOR (n:Symbol) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT external_name IF NOT EXISTS FOR (n:External) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (n:Document) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT chunk_key IF NOT EXISTS FOR (n:Chunk) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT decision_id IF NOT EXISTS FOR (n:Decision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT plan_id IF NOT EXISTS FOR (n:Plan) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT planned_file_key IF NOT EXISTS FOR (n:PlannedFile) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (n:Run) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT turn_key IF NOT EXISTS FOR (n:Turn) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT llm_call_id IF NOT EXISTS FOR (n:LLMCall) REQUIRE n.id IS UNIQUE;

// Lookups by the names people type and by the file a node came from (incremental updates delete by path).
CREATE INDEX module_repo_path IF NOT EXISTS FOR (n:Module) ON (n.repo, n.path);
CREATE INDEX module_qkey IF NOT EXISTS FOR (n:Module) ON (n.qkey);
CREATE INDEX module_repo IF NOT EXISTS FOR (n:Module) ON (n.repo);
CREATE INDEX document_repo IF NOT EXISTS FOR (n:Document) ON (n.repo);
CREATE INDEX symbol_name IF NOT EXISTS FOR (n:Symbol) ON (n.name);
CREATE INDEX symbol_qname IF NOT EXISTS FOR (n:Symbol) ON (n.qname);
CREATE INDEX symbol_repo_path IF NOT EXISTS FOR (n:Symbol) ON (n.repo, n.path);
CREATE INDEX symbol_repo IF NOT EXISTS FOR (n:Symbol) ON (n.repo);
CREATE INDEX document_repo_path IF NOT EXISTS FOR (n:Document) ON (n.repo, n.path);
CREATE INDEX calls_resolution IF NOT EXISTS FOR ()-[r:CALLS]-() ON (r.resolution);

// Fuzzy "where is this defined" and "which doc mentions this".
CREATE FULLTEXT INDEX symbol_text IF NOT EXISTS FOR (n:Symbol) ON EACH [n.name, n.qname, n.doc];
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (n:Chunk) ON EACH [n.heading, n.text];

// Return only once every index is online, so the first query after `kg init` can use them.
CALL db.awaitIndexes(300);
