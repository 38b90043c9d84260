"""Full agent runs against the real Neo4j, driven by recorded transcripts replayed through the real `openai` client.

LLM used by every test here: agent.testing.ReplayServer (a local OpenAI-compatible HTTP server replaying recorded
responses; it reports usage computed with cl100k, like an endpoint with prefix caching).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.agent import records
from kg.agent.context import Budget
from kg.agent.errors import LLMTimeout
from kg.agent.guards import Limits
from kg.agent.loop import AgentLoop
from kg.agent.plan import load_plan
from kg.agent.testing import ReplayServer

from kg.cli import cli
from kg.settings import Settings
from kg.store import Store
from tests.integration.test_agent_helpers import (
    EXAMPLE_PLAN,
    EXAMPLE_TRANSCRIPT,
    GREET,
    MAIN,
    REPO_ROOT,
    call,
    client,
    nf,
    run_plan,
    turns,
    write,
)


def kg_env(settings: Settings) -> dict[str, str]:
    return {"KG_BOLT_PORT": str(settings.bolt_port), "KG_HTTP_PORT": str(settings.http_port),
            "KG_DATA_DIR": str(settings.data_dir)}


def test_example_plan_completes_by_plan_not_by_what_the_model_says(store: Store, tmp_path: Path) -> None:
    with ReplayServer(EXAMPLE_TRANSCRIPT) as server:
        loop = AgentLoop.start(store, client(server), load_plan(EXAMPLE_PLAN), tmp_path / "ws")
        outcome = loop.run()
    assert outcome.status == "completed" and (outcome.done, outcome.total) == (4, 4)
    assert outcome.iterations == 7 and outcome.remaining == []
    done = sorted(p.relative_to(tmp_path / "ws").as_posix() for p in (tmp_path / "ws").rglob("*.py"))
    assert done == ["calc/__init__.py", "calc/cli.py", "calc/ops.py", "calc/parser.py"]
    steps = turns(store, outcome.run_id)
    claimed_done = steps[4]  # the model said "I am done" with a file left: an error result, the run went on
    assert claimed_done["tool"] == "(none)" and not claimed_done["ok"]
    assert "every planned file" in claimed_done["result"]
    run = records.get_run(store, outcome.run_id)
    assert (run["status"], run["done"], run["total"], run["iterations"]) == ("completed", 4, 4, 7)
    # written files are in the graph with a summary, and the decision is about the module it names
    rows = store.read_text("MATCH (m:Module {repo: $repo}) RETURN m.path AS path, m.summary_kind AS kind",
                           repo=run["repo"])
    assert {r["path"]: r["kind"] for r in rows}["calc/ops.py"] == "structural"
    assert store.read_text("MATCH (:Decision)-[:ABOUT]->(m:Module {path: 'calc/ops.py'}) RETURN count(*) AS n")[0]["n"]


def test_context_is_rebuilt_from_the_graph_with_what_the_next_file_needs(store: Store, tmp_path: Path) -> None:
    with ReplayServer(EXAMPLE_TRANSCRIPT) as server:
        outcome = AgentLoop.start(store, client(server), load_plan(EXAMPLE_PLAN), tmp_path / "ws").run()
        first_cli_prompt = next(r for r in server.requests if nf("calc/cli.py") in json.dumps(r))
    messages = first_cli_prompt["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "user"]  # the fixed shape, no history
    plan_msg, knowledge_msg = messages[1]["content"], messages[2]["content"]
    assert "Progress: 2/4 files done." in plan_msg
    assert "### `calc/parser.py`" in knowledge_msg and "def evaluate(text: str) -> float" in knowledge_msg
    assert "Decisions to respect" in knowledge_msg and "ZeroDivisionError" in knowledge_msg
    assert "## Previous step (turn 4): write_file" in knowledge_msg
    # `kg context` prints the same prompt the loop sends, with each segment's tokens
    result = CliRunner().invoke(cli, ["context", "--file", "calc/cli.py", "--run", outcome.run_id, "--json"],
                                env=kg_env(store.settings))
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert set(shown["segments"]) == {"system", "plan", "knowledge", "references", "decisions", "tool_result", "tools"}
    assert shown["segments"]["knowledge"] > 50 and shown["counted"] == sum(shown["segments"].values())
    assert "### `calc/parser.py`" in shown["messages"][2]["content"]


def test_ledger_totals_equal_the_usage_the_api_reported(store: Store, tmp_path: Path) -> None:
    with ReplayServer(EXAMPLE_TRANSCRIPT) as server:
        outcome = AgentLoop.start(store, client(server), load_plan(EXAMPLE_PLAN), tmp_path / "ws").run()
        served = list(server.served)
    env = kg_env(store.settings)
    seg = json.loads(CliRunner().invoke(cli, ["tokens", "report", "--run", outcome.run_id, "--json"], env=env).stdout)
    assert seg["calls"] == len(served) == 7
    assert seg["prompt_tokens"] == sum(u["prompt_tokens"] for u in served)
    assert seg["completion_tokens"] == sum(u["completion_tokens"] for u in served)
    assert seg["cached_tokens"] == sum(u["prompt_tokens_details"]["cached_tokens"] for u in served)
    labelled = sum(seg[k] for k in ("system", "plan", "knowledge", "references", "decisions", "tool_result", "tools"))
    assert labelled == seg["prompt_counted"] and labelled + seg["overhead"] == seg["prompt_tokens"]
    by_turn = json.loads(CliRunner().invoke(cli, ["tokens", "report", "--run", outcome.run_id, "--by", "turn",
                                                  "--json"], env=env).stdout)
    assert [t["turn"] for t in by_turn] == list(range(1, 8))
    assert [t["prompt_tokens"] for t in by_turn] == [u["prompt_tokens"] for u in served]
    by_file = json.loads(CliRunner().invoke(cli, ["tokens", "report", "--run", outcome.run_id, "--by", "file",
                                                  "--json"], env=env).stdout)
    assert sum(f["prompt_tokens"] for f in by_file) == seg["prompt_tokens"]
    assert {f["file"] for f in by_file} == {"calc/ops.py", "calc/parser.py", "calc/cli.py", "calc/__init__.py"}


def test_iteration_cap(store: Store, tmp_path: Path) -> None:
    responses = [call("search_code", query=f"greet {i}") for i in range(5)]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, limits=Limits(max_iterations=2))
    assert (outcome.status, outcome.iterations, outcome.done, outcome.total) == ("max_iterations", 2, 0, 2)
    assert records.get_run(store, outcome.run_id)["remaining"] == ["hello/greet.py", "hello/main.py"]


def test_wall_clock_cap(store: Store, tmp_path: Path) -> None:
    responses = [{**call("search_code", query=f"q{i}"), "delay": 0.4} for i in range(5)]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, limits=Limits(max_seconds=0.3))
    assert outcome.status == "max_time" and outcome.iterations == 1


def test_loop_detector_stops_the_same_call_repeated(store: Store, tmp_path: Path) -> None:
    responses = [call("find_callers", symbol="greet")] * 6
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server)
    assert outcome.status == "aborted" and outcome.iterations == 3 and "same call" in outcome.reason


def test_malformed_calls_are_answered_with_the_error_and_stop_the_run_when_they_persist(
        store: Store, tmp_path: Path) -> None:
    responses = [
        {"tool": "write_file", "raw_arguments": '{"path": "hello/greet.py", "content": '},  # cut-off JSON
        call("delete_everything", path="/"),  # unknown tool
        call("write_file", path="hello/greet.py"),  # missing content
        {"content": "Here is the file: ..."},  # no tool call
        {"tool": "read_file", "raw_arguments": "[1, 2]"},  # not an object
        write("hello/greet.py", GREET),
    ]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server)
        second_prompt = server.requests[1]["messages"][2]["content"]
    assert outcome.status == "aborted" and "5 failed or malformed" in outcome.reason
    results = [t["result"] for t in turns(store, outcome.run_id)]
    assert "not valid JSON" in results[0] and "unknown tool 'delete_everything'" in results[1]
    assert "needs content" in results[2] and "no tool call" in results[3] and "JSON object" in results[4]
    assert "malformed tool call" in second_prompt  # the model sees its error next turn
    assert not (tmp_path / "ws" / "hello").exists()


def test_writes_are_confined_to_the_workspace(store: Store, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link").symlink_to(outside, target_is_directory=True)
    responses = [write("../escape.py", "x = 1\n"), write(str(tmp_path / "abs.py"), "x = 1\n"),
                 write("link/evil.py", "x = 1\n"), write("hello/../../up.py", "x = 1\n"),
                 write("hello/greet.py", GREET), write("hello/main.py", MAIN)]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server)
    results = [t["result"] for t in turns(store, outcome.run_id)]
    assert all(r.startswith("refused:") for r in results[:4]), results
    assert "`..`" in results[0] and "absolute" in results[1] and "symlink" in results[2]
    assert outcome.status == "completed"
    assert not (tmp_path / "escape.py").exists() and not (tmp_path / "abs.py").exists()
    assert list(outside.iterdir()) == [] and not (tmp_path / "up.py").exists()


def test_stall_budget_counts_agent_time_not_llm_time(store: Store, tmp_path: Path) -> None:
    # 7.5 s waiting for the LLM against a 6 s budget: the agent's own time (3.2 s once at load 7) stays under it
    slow_llm = [{**call("search_code", query=f"q{i}"), "delay": 2.5} for i in range(3)]
    with ReplayServer([*slow_llm, write("hello/greet.py", GREET), write("hello/main.py", MAIN)]) as server:
        outcome = run_plan(store, tmp_path / "ws", server, limits=Limits(stall_seconds=6.0))
    assert outcome.status == "completed", outcome.reason  # the LLM waits did not count as a stall
    with ReplayServer([call("search_code", query="q")]) as server:
        stalled = run_plan(store, tmp_path / "ws2", server, limits=Limits(stall_seconds=0.0))
    assert stalled.status == "aborted" and stalled.reason.startswith("stalled")
    assert records.get_run(store, stalled.run_id)["status"] == "aborted"


def test_retries_rate_limits_and_server_errors(store: Store, tmp_path: Path) -> None:
    """Replayed transcript: a 429 asking for a 1 s wait, a 500, then two writes. The ledger counts each call once,
    with the usage the endpoint reported for the answer that came through."""
    responses = [{"status": 429, "headers": {"Retry-After": "1"}}, {"status": 500}, write("hello/greet.py", GREET),
                 write("hello/main.py", MAIN)]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server)
        assert len(server.requests) == 4
    assert outcome.status == "completed" and outcome.iterations == 2
    calls = store.read_text("MATCH (l:LLMCall {run: $run}) RETURN l {.*} AS l ORDER BY l.turn", run=outcome.run_id)
    assert [c["l"]["attempts"] for c in calls] == [3, 1]
    assert calls[0]["l"]["seconds"] >= 1.0  # the Retry-After, not the 0.01 s test backoff
    assert [(c["l"]["prompt_tokens"], c["l"]["completion_tokens"], c["l"]["total_tokens"]) for c in calls] == [
        (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"]) for u in server.served]


def test_an_llm_that_times_out_gives_one_line_and_leaves_the_run_resumable(store: Store, tmp_path: Path) -> None:
    with ReplayServer([{**write("hello/greet.py", GREET), "delay": 3}] * 4) as server:  # 2 attempts × 2 runs
        loop = AgentLoop.start(store, client(server, timeout=0.3, attempts=2),
                               load_plan(_plan_file(tmp_path)), tmp_path / "ws")
        with pytest.raises(LLMTimeout, match=r"did not answer within 0.3 s \(2 attempts\)"):
            loop.run()
        assert records.get_run(store, loop.run_id)["status"] == "incomplete"
        result = CliRunner().invoke(cli, ["agent", "run", "--plan", str(_plan_file(tmp_path)), "--workspace",
                                          str(tmp_path / "ws2"), "--model", "replay", "--base-url", server.base_url,
                                          "--llm-timeout", "0.3", "--llm-attempts", "2"], env=kg_env(store.settings))
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "did not answer within 0.3 s" in errors[0] and "kg agent resume" in errors[0]
    assert "Traceback" not in result.stderr


def test_knowledge_degrades_to_fit_the_budget_and_the_degradation_is_recorded(store: Store, tmp_path: Path) -> None:
    with ReplayServer(EXAMPLE_TRANSCRIPT) as server:
        loop = AgentLoop.start(store, client(server), load_plan(EXAMPLE_PLAN), tmp_path / "ws")
        loop.options.budget = loop.context.budget = Budget(knowledge=60)
        outcome = loop.run()
    assert outcome.status == "completed"
    by_turn = {t["n"]: t for t in turns(store, outcome.run_id)}
    assert by_turn[6]["degradation"] in ("oneline", "names", "names+cut")  # calc/cli.py: parser + ops summaries
    calls = store.read_text("MATCH (l:LLMCall {run: $run}) WHERE l.degradation <> 'none' RETURN max(l.seg_knowledge)"
                            " AS most", run=outcome.run_id)
    assert calls[0]["most"] <= 60


def test_resume_after_a_kill_continues_from_the_graph_alone(store: Store, tmp_path: Path) -> None:
    plan_file = _plan_file(tmp_path)
    responses = [write("hello/greet.py", GREET, when=nf("hello/greet.py")),
                 write("hello/main.py", MAIN, when=nf("hello/main.py"), delay=60)]  # killed while waiting here
    with ReplayServer(responses) as server:
        env = {**os.environ, **kg_env(store.settings)}
        proc = subprocess.Popen([sys.executable, "-m", "kg", "agent", "run", "--plan", str(plan_file), "--workspace",
                                 str(tmp_path / "ws"), "--model", "replay", "--base-url", server.base_url, "--json"],
                                cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while len(server.requests) < 2 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.1)
            assert len(server.requests) == 2, proc.stderr.read().decode() if proc.poll() is not None else "timeout"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        (run,) = records.list_runs(store)
        assert (run["status"], run["done"], run["iterations"]) == ("running", 1, 1)  # it died mid-turn
        resumed = AgentLoop.resume(store, run["id"], client(server))
        assert resumed.guard.iterations == 1
        outcome = resumed.run()
    assert (outcome.status, outcome.done, outcome.iterations) == ("completed", 2, 2)
    assert (tmp_path / "ws" / "hello" / "main.py").read_text() == MAIN
    status = CliRunner().invoke(cli, ["agent", "status", run["id"], "--json"], env=kg_env(store.settings))
    shown = json.loads(status.stdout)
    assert (shown["status"], shown["resumed"], shown["remaining"]) == ("completed", 1, [])


def _plan_file(tmp_path: Path) -> Path:
    from tests.integration.test_agent_helpers import TWO_FILES

    path = tmp_path / "plan.md"
    path.write_text(TWO_FILES)
    return path


def test_a_recorded_real_model_session_replays_with_its_reported_usage(store: Store, tmp_path: Path) -> None:
    """LLM used: the recorded answer of SmolLM2-135M-Instruct on llama.cpp (tests/fixtures/agent/smollm2.jsonl,
    written by KG_LLM_RECORD during a real run), replayed: its usage is the model's own tokenizer's count."""
    plan = tmp_path / "hello.md"
    plan.write_text('# Hello\nOne small Python module.\n\n- `hello.py` — a function hello() that returns the '
                    'string "hello".\n')
    with ReplayServer(REPO_ROOT / "tests" / "fixtures" / "agent" / "smollm2.jsonl") as server:
        outcome = AgentLoop.start(store, client(server), load_plan(plan), tmp_path / "ws").run()
    # The tiny model wrote prose into hello.py: written, but it does not parse, so it is not done. The agent says so
    # to the next turn; the replay repeats the same answer, and the loop guard stops the run with the file flagged.
    assert (outcome.status, outcome.done, outcome.remaining) == ("aborted", 0, ["hello.py"])
    assert outcome.problems["hello.py"].startswith("does not parse as python")
    step = turns(store, outcome.run_id)[0]
    assert not step["ok"] and "Not done: hello.py does not parse as python" in step["result"]
    ledger = store.read_text("MATCH (l:LLMCall {run: $run}) RETURN l {.*} AS l ORDER BY l.id", run=outcome.run_id)[0]
    assert (ledger["l"]["prompt_tokens"], ledger["l"]["completion_tokens"]) == (828, 23)
    assert ledger["l"]["overhead"] == 828 - ledger["l"]["prompt_counted"]


def test_llm_summaries_are_stored_used_and_counted(store: Store, tmp_path: Path) -> None:
    summary = {"responsibility": "Greets people by name.", "interface": ["greet(name) -> str"],
               "dependencies": [], "notes": "pure"}
    responses = [write("hello/greet.py", GREET, when=nf("hello/greet.py")),
                 {"when": "You summarise one source file", "content": "Here: " + json.dumps(summary)},
                 write("hello/main.py", MAIN, when=nf("hello/main.py")),
                 {"when": "You summarise one source file", "content": "not json at all"}]
    with ReplayServer(responses) as server:
        outcome = run_plan(store, tmp_path / "ws", server, summaries="llm")
        main_prompt = next(r for r in server.requests if nf("hello/main.py") in json.dumps(r))
        served = list(server.served)
    assert outcome.status == "completed"
    assert "Responsibility: Greets people by name." in main_prompt["messages"][2]["content"]
    kinds = {r["path"]: r["kind"] for r in store.read_text(
        "MATCH (m:Module {repo: 'ws-test'}) RETURN m.path AS path, m.summary_kind AS kind")}
    assert kinds == {"hello/greet.py": "llm", "hello/main.py": "structural"}  # a bad answer falls back
    ledger = store.read("agent/tokens_by_segment", run=outcome.run_id)[0]
    assert ledger["calls"] == 4 and ledger["file"] > 0
    assert ledger["prompt_tokens"] == sum(u["prompt_tokens"] for u in served)
