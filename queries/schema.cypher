// The graph schema: a uniqueness constraint on every node key, lookup indexes, full-text indexes.
// Applied by `kg init` and by the first ingest; every statement is idempotent (IF NOT EXISTS).
//
// The model (what writes it: queries/ingest/ for code, queries/agent/ for runs):
//   (:Repo {name, root, role: target|reference, model})-[:CONTAINS]->(:Module|:Document)
//             model: the version of what ingest derives (kg.ingest.writer.MODEL); older → rewritten once
//   (:Module {key "<repo>:<path>", repo, path, qname, qkey "<repo>:<qname>", package (folder), lang, loc, hash,
//             syntax_errors, bad_encoding, summary*})            summary* are written by the agent
//   (:Symbol:Class|:Function|:Method|:Variable {key "<repo>:<qname>", repo, path, qname, name, kind,
//             start_line, end_line, signature, doc})          a test function or method is also :Test
//   (:Module|:Symbol)-[:DEFINES]->(:Symbol)                     module → top level, class → method, fn → nested
//   (:Module|:Symbol)-[:CALLS|IMPORTS|INHERITS {line, resolution, confidence}]->(:Module|:Symbol|:External)
//   (:External {name, kind: external|builtin|unresolved})       `requests.get`, `<builtin>.len`, `<unresolved>.f`
//   (:Module)-[:DEPENDS_ON {weight, kinds, line, deferred}]->(:Module)   derived by ingest from the module's and its
//             symbols' IMPORTS, INHERITS and certain CALLS into another module (queries/ingest/depends_on_put)
//   (:Document {key, repo, path, kind, title, error, hash})-[:HAS_CHUNK]->(:Chunk {key, repo, path, ordinal,
//             heading, text, start_line, end_line})
//   (:Plan {id})-[:HAS_FILE]->(:PlannedFile {key "<plan>:<path>", path, description, status})
//   project memory (kg/memory, queries/memory/): (:Decision {id, repo, text, rationale, status, confidence, author,
//             source, version, about [refs]})|(:Knowledge {id, repo, title, responsibility, pitfalls, …})
//             -[:ABOUT {ref, hash}]->(:Module|:Symbol|:Document|:PlannedFile); (:Decision)-[:SUPERSEDES|CONFLICTS_WITH]->
//             (:Decision); (item)-[:REVISED]->(:Revision {key "<id>@<version>"}); (:Run)-[:LOADED]->(item);
//             (:Plan)-[:HAS_DECISION]->(:Decision). Memory targets carry `memory_version` (optimistic concurrency).
//   (:Run {id, status, iterations, ...})-[:FOLLOWS]->(:Plan); (:Run)-[:HAS_TURN]->(:Turn {key "<run>:<n>", run})
//   (:Turn)-[:WORKED_ON]->(:PlannedFile); (:Turn)-[:MADE]->(:LLMCall {id, run, seg_<segment>…, prompt_tokens,
//             completion_tokens, cached_tokens, overhead, degradation}); (:Run)-[:HAS_CALL]->(:LLMCall)
CREATE CONSTRAINT repo_name IF NOT EXISTS FOR (n:Repo) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT module_key IF NOT EXISTS FOR (n:Module) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT symbol_key IF NOT EXISTS FOR (n:Symbol) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT external_name IF NOT EXISTS FOR (n:External) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (n:Document) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT chunk_key IF NOT EXISTS FOR (n:Chunk) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT decision_id IF NOT EXISTS FOR (n:Decision) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT knowledge_id IF NOT EXISTS FOR (n:Knowledge) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT revision_key IF NOT EXISTS FOR (n:Revision) REQUIRE n.key IS UNIQUE;
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
CREATE INDEX turn_run IF NOT EXISTS FOR (n:Turn) ON (n.run);
CREATE INDEX llm_call_run IF NOT EXISTS FOR (n:LLMCall) ON (n.run);
CREATE INDEX decision_repo IF NOT EXISTS FOR (n:Decision) ON (n.repo);
CREATE INDEX knowledge_repo IF NOT EXISTS FOR (n:Knowledge) ON (n.repo);
CREATE INDEX run_repo IF NOT EXISTS FOR (n:Run) ON (n.repo);

// Fuzzy "where is this defined" and "which doc mentions this".
CREATE FULLTEXT INDEX symbol_text IF NOT EXISTS FOR (n:Symbol) ON EACH [n.name, n.qname, n.doc];
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (n:Chunk) ON EACH [n.heading, n.text];

// Return only once every index is online, so the first query after `kg init` can use them.
CALL db.awaitIndexes(300);
