"""The agent and project memory, against the real Neo4j.

LLM used: agent.testing.ReplayServer replaying a recorded transcript (written below) through the real `openai`
client, so the prompts asserted on are exactly the ones the loop sends. The workspace starts with two files people
have recorded memory about; the plan writes one file that uses one of them, then a second that uses the first.
"""

from __future__ import annotations

import json
from pathlib import Path

from kg.agent.loop import AgentLoop, RunOptions
from kg.agent.memory import propose_knowledge
from kg.agent.plan import parse_markdown
from kg.agent.testing import ReplayServer
from kg.ingest.pipeline import Ingestor

from kg.memory import audit, items
from kg.memory.config import MemoryConfig
from kg.memory.writes import MemoryWriter
from kg.store import Store
from tests.integration.test_agent_helpers import call, client, nf, turns, write

PLAN = """# Greetings
Say hello politely.

- `hello/words.py` — the wording of greetings (written by a person already)
- `hello/greet.py` — greet(name) returns a greeting (uses: hello/words.py)
- `hello/main.py` — prints greet("world") (uses: hello/greet.py)
"""
WORDS = 'PREFIX = "hello"\n\n\ndef polite(name: str) -> str:\n    return f"{PREFIX}, {name}"\n'
CLOCK = 'import time\n\n\ndef now() -> float:\n    return time.time()\n'
GREET = 'from hello.words import polite\n\n\ndef greet(name: str) -> str:\n    return polite(name)\n'
MAIN = 'from hello.greet import greet\n\nprint(greet("world"))\n'


def test_context_loads_the_index_then_full_memory_for_touched_modules(store: Store, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "hello").mkdir(parents=True)
    (workspace / "hello" / "words.py").write_text(WORDS)
    (workspace / "hello" / "clock.py").write_text(CLOCK)
    Ingestor(store, workspace, repo="ws-mem").run()
    ada = MemoryWriter(store, MemoryConfig(), "Ada", "cli")
    confirmed = ada.decide("Greetings never end with punctuation", ["hello/words.py"], "the UI adds it")
    proposed = ada.decide("polite() may grow a title argument", ["polite"], propose=True)
    knowledge = ada.put_knowledge(["hello/words.py"], "The wording of every greeting.", ["PREFIX is lower case."])
    elsewhere = ada.decide("The clock is always UTC", ["hello/clock.py"])

    transcript = [
        {**call("record_decision", text="greet() returns the text and never prints",
                rationale="main prints", paths=["hello/greet.py"], confidence=0.95), "when": nf("hello/greet.py")},
        {**call("record_decision", text="Greetings end with punctuation", paths=["hello/words.py"],
                confidence=0.9), "when": nf("hello/greet.py")},
        write("hello/greet.py", GREET, when=nf("hello/greet.py")),
        write("hello/main.py", MAIN, when=nf("hello/main.py")),
    ]
    with ReplayServer(transcript) as server:
        loop = AgentLoop.start(store, client(server), parse_markdown(PLAN), workspace, repo="ws-mem",
                               options=RunOptions())
        outcome = loop.run()
        prompts = [r["messages"][2]["content"] for r in server.requests]
    assert outcome.status == "completed", outcome.reason

    first = prompts[0]  # next file hello/greet.py, which uses hello/words.py
    memory = first[first.index("## Project memory"):first.index("## Previous step")]
    # phase 2, in full, for the module it touches: confirmed before proposed, the proposal labelled
    assert "Greetings never end with punctuation — because the UI adds it (about hello/words.py)" in memory
    assert "[unverified] polite() may grow a title argument" in memory
    assert memory.index("Greetings never end") < memory.index("polite() may grow")
    assert "The wording of every greeting. Watch out: PREFIX is lower case." in memory
    # phase 1, the index only, for a module it does not touch: listed, not loaded
    assert "- `hello/clock.py` (1 decision)" in memory
    assert "The clock is always UTC" not in memory

    results = [t["result"] for t in turns(store, outcome.run_id)]
    assert results[0].startswith("recorded decision dec-") and "(confirmed)" in results[0]
    assert "flagged for a person: contradiction of " + confirmed.id in results[1]
    main_prompt = prompts[-1]  # next file hello/main.py, which uses hello/greet.py
    assert "greet() returns the text and never prints — because main prints (about hello/greet.py)" in main_prompt

    found = {i.text: i for i in items.load(store, "ws-mem")}
    agents = found["greet() returns the text and never prints"]
    assert (agents.status, agents.author, agents.source) == ("confirmed", f"agent:{outcome.run_id}", "agent")
    assert agents.about == ["hello/greet.py"] and agents.pending == [] and not agents.stale  # linked once written
    flagged = found["Greetings end with punctuation"]
    assert flagged.status == "proposed" and flagged.open_conflicts[0].other == confirmed.id

    loaded = {r["id"] for r in store.read_text("MATCH (:Run {id: $run})-[:LOADED]->(d) RETURN d.id AS id",
                                               run=outcome.run_id)}
    assert {confirmed.id, proposed.id, knowledge.id, agents.id} <= loaded and elsewhere.id not in loaded
    unused = {f.id for f in audit.audit(store, MemoryConfig(unused_after_runs=1), "ws-mem") if f.kind == "unused"}
    assert elsewhere.id in unused and confirmed.id not in unused
    assert not any(f.kind == "unused" for f in audit.audit(store, MemoryConfig(unused_after_runs=2), "ws-mem"))


def test_read_file_shows_a_files_memory(store: Store, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "hello").mkdir(parents=True)
    (workspace / "hello" / "words.py").write_text(WORDS)
    Ingestor(store, workspace, repo="ws-mem").run()
    MemoryWriter(store, MemoryConfig(), "Ada", "cli").decide("Greetings never end with punctuation",
                                                            ["hello/words.py"])
    transcript = [call("read_file", path="hello/words.py"), write("hello/greet.py", GREET),
                  write("hello/main.py", MAIN)]
    with ReplayServer(transcript) as server:
        outcome = AgentLoop.start(store, client(server), parse_markdown(PLAN), workspace, repo="ws-mem").run()
    first = turns(store, outcome.run_id)[0]
    assert first["tool"] == "read_file" and "Project memory about it:" in first["result"]
    assert "- Greetings never end with punctuation (about hello/words.py)" in first["result"]


def test_an_llm_summary_becomes_proposed_knowledge_never_over_a_persons(store: Store, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "hello").mkdir(parents=True)
    (workspace / "hello" / "words.py").write_text(WORDS)
    Ingestor(store, workspace, repo="ws-mem").run()
    summary = {"responsibility": "Greets people by name.", "interface": [], "dependencies": [],
               "notes": "never prints"}
    transcript = [write("hello/greet.py", GREET, when=nf("hello/greet.py")),
                  {"when": "You summarise one source file", "content": json.dumps(summary)},
                  write("hello/main.py", MAIN, when=nf("hello/main.py")),
                  {"when": "You summarise one source file", "content": json.dumps({**summary,
                                                                                 "responsibility": "Prints."})}]
    MemoryWriter(store, MemoryConfig(), "Ada", "cli").put_knowledge(["hello/words.py"], "The wording.", [])
    with ReplayServer(transcript) as server:
        outcome = AgentLoop.start(store, client(server), parse_markdown(PLAN), workspace, repo="ws-mem",
                                  options=RunOptions(summaries="llm")).run()
        main_prompt = server.requests[-2]["messages"][2]["content"]
    assert outcome.status == "completed"
    found = {tuple(k.about): k for k in items.load(store, "ws-mem") if k.type == "knowledge"}
    greet = found[("hello/greet.py",)]
    assert (greet.responsibility, greet.pitfalls, greet.status) == ("Greets people by name.", ["never prints"],
                                                                   "proposed")
    assert greet.author == f"agent:{outcome.run_id}" and greet.source == "agent"
    propose_knowledge(store, "ws-mem", outcome.run_id, "hello/words.py", "Constants.", "")
    assert found[("hello/words.py",)].responsibility == "The wording."
    assert items.get(store, found[("hello/words.py",)].id).responsibility == "The wording."  # a person's stays
    assert "[unverified] `hello/greet.py`: Greets people by name. Watch out: never prints" in main_prompt
