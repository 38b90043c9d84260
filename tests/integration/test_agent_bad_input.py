"""Bad input to the agent: one line that says what to do, no traceback, and a graph that stays consistent.

LLM used: agent.testing.ReplayServer (recorded responses, some deliberately not shaped like a chat completion),
or none where the input is refused before any model is asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.agent import records
from kg.agent.guards import Limits
from kg.agent.testing import ReplayServer

from kg.cli import cli
from kg.store import Store
from tests.integration.test_agent_helpers import GREET, MAIN, call, nf, run_plan, turns, write
from tests.integration.test_agent_run import kg_env

PLAN = "# Two\nSay hello.\n\n- `hello/greet.py` — greet\n- `hello/main.py` — main (uses: hello/greet.py)\n"


def _raw(message: dict | None = None, choices: object = None) -> dict:
    """A response served exactly as written (the replay server adds usage)."""
    return {"raw": {"id": "raw", "object": "chat.completion", "created": 1, "model": "replay",
                    "choices": choices if choices is not None else [
                        {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", **message}}]}}


def _object_args(name: str, arguments: dict) -> dict:
    """A tool call whose arguments are a JSON object instead of the string the API specifies."""
    return _raw({"content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                  "function": {"name": name, "arguments": arguments}}]})


@pytest.mark.parametrize("case, message", [
    ("not_utf8", "is not UTF-8 text"),
    ("plan_is_a_folder", "Is a directory: give a Markdown or YAML plan file"),
    ("workspace_is_a_file", "is a file: give a folder"),
    ("workspace_under_a_file", "cannot create workspace"),
    ("unknown_tool_choice", "--tool-choice 'write' is not auto, required or a tool name"),
])
def test_bad_plans_and_workspaces_get_one_line_and_store_nothing(store: Store, tmp_path: Path, case: str,
                                                                 message: str) -> None:
    plan, workspace, extra = tmp_path / "plan.md", tmp_path / "ws", []
    plan.write_text(PLAN)
    (tmp_path / "a_file").write_text("x")
    if case == "not_utf8":
        plan.write_bytes(b"\xff\xfe# plan\n- `a.py` \x00")
    elif case == "plan_is_a_folder":
        plan = tmp_path
    elif case == "workspace_is_a_file":
        workspace = tmp_path / "a_file"
    elif case == "workspace_under_a_file":
        workspace = tmp_path / "a_file" / "ws"
    else:
        extra = ["--tool-choice", "write"]
    result = CliRunner().invoke(cli, ["agent", "run", "--plan", str(plan), "--workspace", str(workspace),
                                      "--model", "m", "--base-url", "http://127.0.0.1:9/v1", *extra],
                                env=kg_env(store.settings))
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
    assert store.read_text("MATCH (n) WHERE n:Run OR n:Plan OR n:PlannedFile RETURN count(n) AS n")[0]["n"] == 0


def test_a_model_that_answers_garbage_is_told_and_counted_never_a_crash(store: Store, tmp_path: Path) -> None:
    responses = [
        _object_args("write_file", {"path": "hello/greet.py", "content": GREET}),  # arguments as an object: fine
        _object_args("rm_rf", {"path": "/"}),  # unknown tool, arguments as an object
        _raw(choices="garbage"),  # not a chat completion
        call("record_decision", text="Keep it small", paths=5),  # the wrong type
        write("hello/greet.py/x.py", "x = 1\n"),  # below an existing file
        call("search_code", query="greet OR"),  # a Lucene operator in the words
        write("hello/main.py", "print('\ud800')\n"),  # a lone surrogate: not text
    ]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, plan_text=PLAN, limits=Limits(max_iterations=7))
    assert (outcome.status, outcome.iterations, outcome.done) == ("max_iterations", 7, 1), outcome.reason
    steps = turns(store, outcome.run_id)
    assert [s["ok"] for s in steps] == [True, False, False, False, False, True, False]
    results = [s["result"] for s in steps]
    assert results[0].startswith("wrote hello/greet.py")
    assert "unknown tool 'rm_rf'" in results[1] and '"path": "/"' in steps[1]["args"]
    assert results[2].startswith("no tool call")
    assert "record_decision's paths must be a list of strings, not int" in results[3]
    assert results[4].startswith("refused: cannot create the folder of hello/greet.py/x.py")
    assert "hello.greet.greet" in results[5]
    assert results[6].startswith("refused: content for hello/main.py is not valid text")
    # nothing half-done: no empty main.py that would count as implemented, no decision from the bad call
    assert not (tmp_path / "ws" / "hello" / "main.py").exists()
    run = records.get_run(store, outcome.run_id)
    assert (run["done"], run["remaining"]) == (1, ["hello/main.py"])
    assert store.read_text("MATCH (d:Decision) RETURN count(d) AS n")[0]["n"] == 0


@pytest.mark.parametrize("body, content_type", [("<html><body>It works!</body></html>", "text/html"),
                                                ("not json {", "application/json")])
def test_an_endpoint_that_is_not_a_chat_completion_api_gets_one_line(store: Store, tmp_path: Path, body: str,
                                                                     content_type: str) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    with ReplayServer([{"body": body, "content_type": content_type}]) as server:
        result = CliRunner().invoke(cli, ["agent", "run", "--plan", str(plan), "--workspace", str(tmp_path / "ws"),
                                          "--model", "replay", "--base-url", server.base_url, "--json"],
                                    env=kg_env(store.settings))
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error:") and "did not answer with a chat completion" in line and "kg agent resume" in line
    (run,) = records.list_runs(store)
    assert (run["status"], run["iterations"]) == ("incomplete", 0)


def test_a_failed_summary_call_falls_back_to_the_structural_summary(store: Store, tmp_path: Path) -> None:
    responses = [write("hello/greet.py", GREET, when=nf("hello/greet.py")),
                 {"when": "You summarise one source file", "status": 400, "message": "no such model"},
                 write("hello/main.py", MAIN, when=nf("hello/main.py"))]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, plan_text=PLAN, summaries="llm")
    assert (outcome.status, outcome.iterations) == ("completed", 2)
    steps = turns(store, outcome.run_id)
    assert all(s["ok"] for s in steps) and "structural summary stored" in steps[0]["result"], steps[0]["result"]


def test_a_planned_file_an_ignore_file_keeps_out_of_the_graph_is_not_done(store: Store, tmp_path: Path) -> None:
    """The model writes `.gitignore` = `*`, then the planned files: they were ignored on re-ingest yet counted as
    done ("kg does not parse this kind of file"), so an unparsable file completed the plan. Recorded responses."""
    responses = [write(".gitignore", "*\n"), write("hello/greet.py", GREET), write("hello/main.py", "def (:\n")]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, plan_text=PLAN, limits=Limits(max_iterations=3))
    assert outcome.status != "done" and outcome.done == 0, outcome
    results = [s["result"] for s in turns(store, outcome.run_id)]
    assert "was written but not ingested (an ignore file of the workspace" in results[1], results[1]
    run = records.get_run(store, outcome.run_id)
    assert run["remaining"] == ["hello/greet.py", "hello/main.py"]
