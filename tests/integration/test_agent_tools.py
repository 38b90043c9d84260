"""The agent's tools against a real graph: answers come from the graph (summaries, callers, impact, references).

LLM used: agent.testing.ReplayServer replaying examples/plans/calculator.transcript.json, to build the workspace.
"""

from __future__ import annotations

from pathlib import Path

from kg.agent.loop import AgentLoop
from kg.agent.plan import load_plan
from kg.agent.testing import ReplayServer
from kg.ingest.pipeline import Ingestor

from kg.store import Store
from tests.integration.test_agent_helpers import EXAMPLE_PLAN, EXAMPLE_TRANSCRIPT, REPO_ROOT, client


def _calculator(store: Store, tmp_path: Path) -> AgentLoop:
    with ReplayServer(EXAMPLE_TRANSCRIPT) as server:
        loop = AgentLoop.start(store, client(server), load_plan(EXAMPLE_PLAN), tmp_path / "ws")
        assert loop.run().status == "completed"
    return loop


def test_graph_tools_answer_from_the_graph(store: Store, tmp_path: Path) -> None:
    tools = _calculator(store, tmp_path).toolbox
    summary = tools.execute("read_file", {"path": "calc/ops.py"})
    assert summary.ok and summary.text.startswith("Summary of calc/ops.py (structural): add, sub, mul and div")
    assert "def div(a: float, b: float) -> float" in summary.text
    (tmp_path / "ws" / "notes.txt").write_text("plain text\n" * 2000)
    text = tools.execute("read_file", {"path": "notes.txt"})  # no summary: bounded file text
    assert text.ok and text.text.startswith("notes.txt:\nplain text") and text.text.endswith("[cut: file is longer]")
    assert not tools.execute("read_file", {"path": "../etc/passwd"}).ok
    callers = tools.execute("find_callers", {"symbol": "evaluate"})
    assert "calc.cli.main → calc.parser.evaluate" in callers.text
    impact = tools.execute("impact", {"target": "calc/ops.py"})
    assert "calc/parser.py" in impact.text and "calc/cli.py" in impact.text  # cli calls ops through parser
    assert "calc.ops.div" in tools.execute("search_code", {"query": "divided zero"}).text
    decided = tools.execute("record_decision", {"text": "Keep floats", "paths": ["calc/ops.py"]})
    assert decided.ok and decided.text.startswith("recorded decision dec-")


def test_search_references_says_plainly_when_there_are_none_and_answers_when_there_are(
        store: Store, tmp_path: Path) -> None:
    tools = _calculator(store, tmp_path).toolbox
    none = tools.execute("search_references", {"query": "cart total"})
    assert none.ok and none.text.startswith("No reference repositories are in the graph")
    Ingestor(store, REPO_ROOT / "examples" / "tinyshop", repo="tinyshop", role="reference").run()
    found = tools.execute("search_references", {"query": "cart"})
    assert found.ok and found.text.startswith("tinyshop:"), found.text


def test_every_agent_query_runs_with_its_browser_params(store: Store) -> None:
    """LLM used: none. Each queries/agent/*.cypher runs as a person would paste it into Neo4j Browser."""
    import re

    from kg import queries

    names = [n for n in queries.names() if n.startswith("agent/")]
    assert len(names) >= 20
    for name in names:
        text = (REPO_ROOT / "queries" / f"{name}.cypher").read_text()
        params = {m[1]: store.read_text(f"RETURN {m[2]} AS v")[0]["v"]
                  for m in re.finditer(r"^:param (\w+) => (.*);$", text, re.MULTILINE)}
        assert text.startswith("//"), name
        store.write(name, **params)  # write access: half of them write; none may fail
