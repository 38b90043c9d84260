"""Project memory: decisions and module knowledge that people and agents share, audited against the code.

    (:Decision {id, repo, text, rationale, status, confidence, author, source, created_at, updated_at, version,
                about, pending, plan, run})-[:ABOUT {ref, hash, at}]->(:Module|:Symbol|:Document)
    (:Knowledge {id, repo, title, responsibility, pitfalls, status, ...same lifecycle})-[:ABOUT]->(...)
    (:Decision)-[:SUPERSEDES]->(:Decision)
    (:Decision)-[:CONFLICTS_WITH {kind, reason, score, settled}]->(:Decision)   flagged by the newer one
    (:Decision|:Knowledge)-[:REVISED]->(:Revision {key "<id>@<version>", ...the item as it was})
    (:Run)-[:LOADED {turns, first_turn}]->(:Decision|:Knowledge)   what an agent's context actually showed

`about` lists the targets as refs (`path` for a module or document, `path#qname` for a symbol), so a decision
still says what it was about after ingest deleted the target (orphaned). Each ABOUT edge records the target's
content hash when the decision was made (Module.hash, Document.hash, or Symbol.hash: the hash of the symbol's own
source lines); a different hash now means the code changed since (stale).

One job per module: `config` (.agent/memory.yaml), `similarity` (duplicate and contradiction heuristics),
`targets` (names → nodes), `items` (reading memory back), `writes` (checked, versioned writes), `audit`, `files`
(export/import of `.agent-memory/`), `llm_check` (an optional second opinion), `cli`, `mcp_tools`.
"""
