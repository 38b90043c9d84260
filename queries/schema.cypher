// The graph schema: a uniqueness constraint on every node key, lookup indexes, full-text indexes.
// Applied by `kg init` and by the first ingest; every statement is idempotent (IF NOT EXISTS).
//
// The model (what writes it: queries/ingest/ for code, queries/agent/ for runs):
//   (:Repo {name, root, role: target|reference, model, writing})-[:CONTAINS]->(:Module|:Document)
//             model: the version of what ingest derives (kg.ingest.writer.MODEL); older → rewritten once
//             writing: when a bulk write began that has not finished (kg/unfinished.py: answers say so)
//   (:Module {key "<repo>:<path>", repo, path, qname, qkey "<repo>:<qname>", package (folder), lang, loc, hash,
//             syntax_errors, bad_encoding, words, flow_reads, summary*, embedding*, embed_key*})
//             summary*: the agent; embedding*: kg.retrieve; flow_reads: the argument flows (`pkg.mod.func#param`)
//             the module's edges were resolved with (ingest/project.py)
//   (:Symbol:Class|:Function|:Method|:Variable {key "<repo>:<qname>", repo, path, qname, name, kind,
//             start_line, end_line, signature, doc, hash, words, embedding*, embed_key*})  a test is also :Test;
//             embedding* from the embedding phase (kg.retrieve.vectors)
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
//   written by `kg observe` (queries/observe/), from running the test suite:
//   (:ObservedTest {key "<repo>:<nodeid>", repo, nodeid, path, function, outcome, fixtures, hash, run})
//   (:TestScope {key, repo, prefix, fixture, run})       code run outside any test (imports) / in a wider fixture
//   (:ObservedTest|TestScope)-[:COVERS {count, hash, text}]->(:Symbol|Module)
//   (:Symbol|Module)-[:CALLS {resolution: 'observed', via: direct|library, count, confidence: 1.0,
//             source_hash, target_hash, source_text, target_text, run}]->(:Symbol|Module)
//   (:ObservedRun {id, repo, at, command, python, tracer, mode, exit_status, tests, passed, failed, ...})
//   (:ContextCall {id, task, day, at, repo, type, tokens, budget, degradation, alerts, files})  kg.retrieve.context
//   (:Module)-[:INFORMS {type, confidence, aspects, suggestion, method}]->(:PlannedFile)   reference → plan (kg relate)
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
CREATE CONSTRAINT observed_test_key IF NOT EXISTS FOR (n:ObservedTest) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT test_scope_key IF NOT EXISTS FOR (n:TestScope) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT observed_run_id IF NOT EXISTS FOR (n:ObservedRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT context_call_id IF NOT EXISTS FOR (n:ContextCall) REQUIRE n.id IS UNIQUE;

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
CREATE INDEX observed_test_repo IF NOT EXISTS FOR (n:ObservedTest) ON (n.repo);
CREATE INDEX observed_test_repo_path IF NOT EXISTS FOR (n:ObservedTest) ON (n.repo, n.path);
CREATE INDEX observed_test_repo_function IF NOT EXISTS FOR (n:ObservedTest) ON (n.repo, n.function);
CREATE INDEX test_scope_repo IF NOT EXISTS FOR (n:TestScope) ON (n.repo);
CREATE INDEX observed_run_repo IF NOT EXISTS FOR (n:ObservedRun) ON (n.repo);
CREATE INDEX context_call_task IF NOT EXISTS FOR (n:ContextCall) ON (n.task);
CREATE INDEX context_call_day IF NOT EXISTS FOR (n:ContextCall) ON (n.day);
CREATE INDEX decision_repo IF NOT EXISTS FOR (n:Decision) ON (n.repo);
CREATE INDEX knowledge_repo IF NOT EXISTS FOR (n:Knowledge) ON (n.repo);
CREATE INDEX run_repo IF NOT EXISTS FOR (n:Run) ON (n.repo);

// Fuzzy "where is this defined" and "which doc mentions this".
CREATE FULLTEXT INDEX symbol_text IF NOT EXISTS FOR (n:Symbol) ON EACH [n.name, n.qname, n.doc];
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (n:Chunk) ON EACH [n.heading, n.text];

// From a task in words to code (kg context --task): identifiers split into words (`cached_eval` → cached eval) at
// ingest, then stemmed and stop-worded by the english analyzer, so prose and code meet.
CREATE FULLTEXT INDEX symbol_words IF NOT EXISTS FOR (n:Symbol) ON EACH [n.words]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX module_words IF NOT EXISTS FOR (n:Module) ON EACH [n.words]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
// Vector indexes (symbol_embedding, module_embedding, chunk_embedding on n.embedding) are made by the embedding
// phase with the model's dimensions (queries/retrieve/vector_index_create), and rebuilt when the model changes.

// Return only once every index is online, so the first query after `kg init` can use them.
CALL db.awaitIndexes(300);
