"""What `make demo` relies on to be repeatable, against the real Neo4j: a second run of a plan does not inherit the
first run's decisions, the token report shows the latest run by default, and tables printed to a pipe (make, CI)
are not folded at 80 columns.

LLM used: agent.testing.ReplayServer replaying the responses written below through the real `openai` client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from kg.agent.testing import ReplayServer
from kg.ingest.pipeline import Ingestor

from kg.cli import cli
from kg.settings import Settings
from kg.store import Store
from tests.integration.test_agent_helpers import GREET, MAIN, call, nf, run_plan, write

DECISION = "Greetings are lowercase"
REPO_ROOT = Path(__file__).resolve().parents[2]


def _responses(with_decision: bool) -> list[dict]:
    decide = [call("record_decision", text=DECISION, rationale="house style", paths=["hello/greet.py"])]
    return [*(decide if with_decision else []), write("hello/greet.py", GREET, when=nf("hello/greet.py")),
            write("hello/main.py", MAIN, when=nf("hello/main.py"))]


def test_a_new_run_of_a_plan_starts_without_the_earlier_runs_decisions(store: Store, tmp_path: Path) -> None:
    with ReplayServer(_responses(with_decision=True)) as server:
        first = run_plan(store, tmp_path / "ws", server)
        seen_by_first = [json.dumps(r) for r in server.requests]
    assert first.status == "completed" and any(DECISION in r for r in seen_by_first[1:])
    with ReplayServer(_responses(with_decision=False)) as server:  # same plan, same workspace, wiped
        for path in (tmp_path / "ws").rglob("*.py"):
            path.unlink()
        second = run_plan(store, tmp_path / "ws", server)
        seen_by_second = [json.dumps(r) for r in server.requests]
    assert second.status == "completed"
    assert not any(DECISION in r for r in seen_by_second), "the first run's decision leaked into the new run"
    kept = store.read_text("MATCH (d:Decision {text: $t}) RETURN d.status AS status, d.superseded_by_run AS by",
                           t=DECISION)
    assert kept == [{"status": "superseded", "by": second.run_id}]  # history, not forgotten

    env = {"NEO4J_URI": store.settings.uri, "NEO4J_PASSWORD": store.settings.password}
    latest = json.loads(CliRunner().invoke(cli, ["tokens", "report", "--json"], env=env).stdout)
    every = json.loads(CliRunner().invoke(cli, ["tokens", "report", "--all", "--json"], env=env).stdout)
    assert latest["calls"] == second.iterations and every["calls"] == first.iterations + second.iterations


def test_tables_printed_to_a_pipe_keep_their_headers_whole(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, REPO_ROOT / "examples" / "tinyshop").run()
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(NEO4J_URI=graph_settings.uri, NEO4J_PASSWORD=graph_settings.password)
    printed = subprocess.run([sys.executable, "-m", "kg", "callees", "Cart.checkout", "--repo", "tinyshop"],
                             env=env, capture_output=True, text=True, check=True).stdout
    header = next(line for line in printed.splitlines() if "┃" in line)
    for column in ("depth", "callee", "call at", "defined at", "resolution", "confidence"):
        assert column in header
    assert "shop.pricing.apply_discounts" in printed  # a dotted name is not folded in the middle
