"""Shared by the agent tests (no tests here): run a plan through the real loop against a replayed transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.agent.context import Budget
from kg.agent.guards import Limits
from kg.agent.llm import LLMClient, LLMConfig
from kg.agent.loop import AgentLoop, RunOptions, RunOutcome
from kg.agent.plan import parse_markdown
from kg.agent.testing import ReplayServer

from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_PLAN = REPO_ROOT / "examples" / "plans" / "calculator.md"
EXAMPLE_TRANSCRIPT = REPO_ROOT / "examples" / "plans" / "calculator.transcript.json"

TWO_FILES = """# Two files
Say hello.

- `hello/greet.py` — greet(name) returns a greeting.
- `hello/main.py` — prints greet("world") (uses: hello/greet.py)
"""
GREET = 'def greet(name: str) -> str:\n    """A greeting."""\n    return f"hello {name}"\n'
MAIN = 'from hello.greet import greet\n\nprint(greet("world"))\n'


def nf(path: str) -> str:
    """The `when` text that matches the turns whose next file is `path`."""
    return f"Next file: `{path}`"


def write(path: str, content: str, when: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"tool": "write_file", "arguments": {"path": path, "content": content}, **({"when": when} if when else {}),
            **extra}


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def client(server: ReplayServer, timeout: float = 10.0, attempts: int = 3) -> LLMClient:
    return LLMClient(LLMConfig("replay", server.base_url, "test-key", timeout=timeout, attempts=attempts,
                               backoff=0.01))


def run_plan(store: Store, workspace: Path, server: ReplayServer, plan_text: str = TWO_FILES,
             limits: Limits | None = None, budget: Budget | None = None, **options: Any) -> RunOutcome:
    loop = AgentLoop.start(store, client(server), parse_markdown(plan_text), workspace, repo="ws-test",
                           options=RunOptions(limits or Limits(), budget or Budget(), **options))
    return loop.run()


def turns(store: Store, run_id: str) -> list[dict[str, Any]]:
    return [r["t"] for r in store.read_text("MATCH (t:Turn {run: $run}) RETURN t {.*} AS t ORDER BY t.n", run=run_id)]
