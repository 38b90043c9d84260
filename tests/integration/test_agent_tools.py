"""The agent's tools against a real graph: answers come from the graph (summaries, callers, impact, references).

LLM used: agent.testing.ReplayServer replaying examples/plans/calculator.transcript.json, to build the workspace.
"""

from __future__ import annotations

from pathlib import Path

from kg.agent.loop import AgentLoop
from kg.agent.plan import load_plan
from kg.agent.testing import ReplayServer
from kg.agent.tools import Toolbox
from kg.agent.workspace import Workspace
from kg.ingest.pipeline import Ingestor

from kg.navigate import answers
from kg.navigate.render import compact
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
    assert callers.ok and "calc.cli.main" in callers.text and "calc/cli.py:" in callers.text
    impact = tools.execute("impact", {"target": "calc/ops.py"})
    assert "calc/parser.py" in impact.text and "calc/cli.py" in impact.text  # cli calls ops through parser
    assert "calc.ops.div" in tools.execute("search_code", {"query": "divided zero"}).text  # docstring words
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
    assert {"agent/context_state", "agent/plan_put", "agent/llm_call_put", "agent/run_put"} <= set(names)
    for name in names:
        text = (REPO_ROOT / "queries" / f"{name}.cypher").read_text()
        params = {m[1]: store.read_text(f"RETURN {m[2]} AS v")[0]["v"]
                  for m in re.finditer(r"^:param (\w+) => (.*);$", text, re.MULTILINE)}
        assert text.startswith("//"), name
        store.write(name, **params)  # write access: half of them write; none may fail


CHAIN = {  # a call chain five files long, an importer at each step, and a subclass
    "chain/f1.py": "class Base:\n    pass\n\n\ndef one():\n    return 1\n",
    "chain/f2.py": "from chain.f1 import one\n\n\ndef two():\n    return one()\n",
    "chain/f3.py": "from chain.f2 import two\n\n\ndef three():\n    return two()\n",
    "chain/f4.py": "from chain.f3 import three\n\n\ndef four():\n    return three()\n",
    "chain/f5.py": "from chain.f4 import four\n\n\ndef five():\n    \"\"\"The top of the chain.\"\"\"\n"
                   "    return four()\n",
    "chain/sub.py": "from chain.f1 import Base\n\n\nclass Sub(Base):\n    pass\n",
}


def _chain_tools(store: Store, tmp_path: Path) -> Toolbox:
    root = tmp_path / "chain"
    for path, text in {"chain/__init__.py": "", **CHAIN}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    Ingestor(store, root, repo="chain").run()
    return Toolbox(store, Workspace(root), "chain", record_decision=lambda **_: "", after_write=lambda _: (True, ""))


def test_agent_tools_give_the_navigation_answers(store: Store, tmp_path: Path) -> None:
    """LLM used: none. impact, find_callers and search_code answer exactly as `kg impact`, `kg callers`, `kg find`
    and the MCP tools do (one answer per question), rendered compactly."""
    tools = _chain_tools(store, tmp_path)
    impact = tools.execute("impact", {"target": "chain.f1.one", "depth": 5})
    assert impact.ok and impact.text == compact(answers.impact(store, ["chain.f1.one"], "chain", 5, limit=30))
    rows = impact.text.splitlines()
    assert any(r.startswith("4\tchain.f5.five\t") for r in rows), impact.text  # depth 4: beyond the old *1..3
    assert any(r.startswith("1\tchain.f2\tmodule") for r in rows), impact.text  # an importer
    base = tools.execute("impact", {"target": "Base"})
    assert any("\tchain.sub.Sub\t" in r for r in base.text.splitlines()), base.text  # a subclass
    callers = tools.execute("find_callers", {"symbol": "two"})
    assert callers.text == compact(answers.callers(store, "two", "chain", 1, limit=20))
    assert "chain.f3.three" in callers.text
    found = tools.execute("search_code", {"query": "top chain"})
    assert found.text == compact(answers.find(store, "top chain", "chain", limit=10))
    assert "chain.f5.five" in found.text


def test_agent_tools_say_what_to_change_when_a_name_is_unknown_or_ambiguous(store: Store, tmp_path: Path) -> None:
    """LLM used: none. The navigation errors reach the model as a failed step, never a crash or a silent guess."""
    tools = _chain_tools(store, tmp_path)
    unknown = tools.execute("find_callers", {"symbol": "fourr"})
    assert not unknown.ok and "chain.f4.four" in unknown.text  # the closest name
    (tmp_path / "chain" / "chain" / "f6.py").write_text("def two():\n    return 2\n")
    Ingestor(store, tmp_path / "chain", repo="chain").run()
    ambiguous = tools.execute("impact", {"target": "two"})
    assert not ambiguous.ok and "ambiguous" in ambiguous.text and "chain.f6.two" in ambiguous.text
    too_deep = tools.execute("impact", {"target": "chain.f1.one", "depth": 50})
    assert not too_deep.ok and "depth must be between 1 and 10" in too_deep.text
