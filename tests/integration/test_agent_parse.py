"""A planned file counts as done only when it parses as its language; a garbage file is reported and retried.

LLM used: agent.testing.ReplayServer replaying the responses written below through the real `openai` client.
"""

from __future__ import annotations

from pathlib import Path

from kg.agent import records
from kg.agent.guards import Limits
from kg.agent.testing import ReplayServer

from kg.store import Store
from tests.integration.test_agent_helpers import GREET, MAIN, nf, run_plan, turns, write

GARBAGE = "Hello, World! This is a Python file that greets people.\n"  # what SmolLM2-135M wrote for a .py file


def test_a_garbage_file_is_not_done_until_it_parses(store: Store, tmp_path: Path) -> None:
    responses = [write("hello/greet.py", GARBAGE, when=nf("hello/greet.py")),
                 write("hello/greet.py", GREET, when=nf("hello/greet.py")),
                 write("hello/main.py", MAIN, when=nf("hello/main.py"))]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server)
        prompts = [str(r["messages"]) for r in server.requests]
    assert (outcome.status, outcome.done, outcome.iterations) == ("completed", 2, 3)
    first, retry, _ = turns(store, outcome.run_id)
    assert not first["ok"] and "Not done: hello/greet.py does not parse as python" in first["result"]
    assert retry["ok"] and retry["target"] == "hello/greet.py"
    assert "does not parse" in prompts[1] and nf("hello/greet.py") in prompts[1]  # told, and asked again


def test_a_run_that_stops_with_a_garbage_file_flags_it(store: Store, tmp_path: Path) -> None:
    with ReplayServer([write("hello/greet.py", GARBAGE)]) as server:  # the same garbage, every turn
        outcome = run_plan(store, tmp_path / "ws", server)
    assert outcome.status == "aborted" and outcome.done == 0
    assert set(outcome.remaining) == {"hello/greet.py", "hello/main.py"}
    assert list(outcome.problems) == ["hello/greet.py"]
    assert outcome.problems["hello/greet.py"].startswith("does not parse as python (")
    assert (tmp_path / "ws" / "hello" / "greet.py").exists()  # on disk, yet not done
    run = records.get_run(store, outcome.run_id)
    assert run["problems"][0].startswith("hello/greet.py: does not parse as python")
    progress = records.progress(store, run["plan"], "ws-test")
    assert [f.problem is not None for f in progress.files] == [True, False]


def test_a_run_stopped_by_its_iteration_cap_flags_the_file_too(store: Store, tmp_path: Path) -> None:
    with ReplayServer([write("hello/greet.py", GARBAGE)]) as server:
        outcome = run_plan(store, tmp_path / "ws", server, limits=Limits(max_iterations=1))
    assert outcome.status == "max_iterations"
    assert outcome.problems["hello/greet.py"].startswith("does not parse as python (")
