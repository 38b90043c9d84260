"""The agent's state in the graph: plans, planned files, runs, turns and LLM calls (its decisions are project
memory, agent/memory.py).

Everything a run needs to continue is here, never in process memory, which is what makes `kg agent resume` work
after a crash: the plan text, the run's options and counters, and the last step's result all live on nodes.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kg.agent.errors import RunNotFound
from kg.agent.plan import Plan
from kg.ingest.languages import languages

from kg.store import Store

RUN_STATUSES = ("running", "completed", "max_iterations", "max_time", "aborted", "incomplete")


@dataclass(frozen=True)
class FileProgress:
    path: str
    description: str
    uses: tuple[str, ...]
    done: bool
    problem: str | None = None  # why a written file is not done (it does not parse)


@dataclass(frozen=True)
class Progress:
    files: tuple[FileProgress, ...]

    @property
    def total(self) -> int:
        return len(self.files)

    @property
    def done(self) -> int:
        return sum(f.done for f in self.files)

    @property
    def remaining(self) -> list[FileProgress]:
        return [f for f in self.files if not f.done]

    def next_file(self) -> FileProgress | None:
        """The first remaining file whose uses are all done (so its dependencies can be summarised), else the first."""
        done = {f.path for f in self.files if f.done}
        remaining = self.remaining
        ready = [f for f in remaining if all(u in done for u in f.uses)]
        return (ready or remaining or [None])[0]


def new_run_id() -> str:
    return f"run-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def put_plan(store: Store, plan: Plan, repo: str) -> str:
    plan_id = plan.plan_id(repo)
    rows = [{"key": f"{plan_id}:{f.path}", "path": f.path, "description": f.description, "uses": list(f.uses),
             "ordinal": i} for i, f in enumerate(plan.files)]
    store.write("agent/plan_put", rows, plan={"id": plan_id, "title": plan.title, "goal": plan.goal, "repo": repo,
                                              "source": plan.source, "text": plan.text})
    return plan_id


def parsed_endings() -> list[str]:
    """The file endings kg parses as code: a planned file with one of them counts only once it is in the graph."""
    return sorted({ending for language in languages() for ending in language.extensions})


def progress(store: Store, plan_id: str, repo: str) -> Progress:
    rows = store.read("agent/plan_progress", plan=plan_id, repo=repo, parsed=parsed_endings())
    return Progress(tuple(FileProgress(r["path"], r["description"] or "", tuple(r["uses"] or ()), bool(r["done"]),
                                       r["problem"]) for r in rows))


def mark_files(store: Store, plan_id: str, rows: list[dict[str, Any]]) -> None:
    if rows:
        store.write("agent/planned_file_mark", rows, plan=plan_id)


def put_run(store: Store, run_id: str, plan_id: str, **props: Any) -> None:
    store.write("agent/run_put", id=run_id, plan=plan_id, props=props)


def get_run(store: Store, run_id: str) -> dict[str, Any]:
    rows = store.read("agent/run_get", id=run_id)
    if not rows:
        raise RunNotFound(f"no run {run_id!r} in the graph: `kg agent status` lists the runs")
    return {**rows[0]["run"], "plan": rows[0]["plan"]}


def list_runs(store: Store, limit: int = 20) -> list[dict[str, Any]]:
    return [{**r["run"], "plan": r["plan"], "plan_title": r["plan_title"]}
            for r in store.read("agent/runs_list", limit=limit)]


def put_turn(store: Store, run_id: str, plan_id: str, turn: dict[str, Any], call: dict[str, Any] | None) -> None:
    store.write("agent/turn_put", run=run_id, plan=plan_id, turn=turn, call=call)


def put_llm_call(store: Store, run_id: str, turn_key: str, call: dict[str, Any]) -> None:
    store.write("agent/llm_call_put", run=run_id, turn=turn_key, call=call)


def recent_calls(store: Store, run_id: str, limit: int = 10) -> list[dict[str, Any]]:
    """Oldest first, so they can be replayed into a fresh loop detector."""
    return list(reversed(store.read("agent/run_recent_calls", run=run_id, limit=limit)))


def retire_decisions(store: Store, plan_id: str, run_id: str) -> None:
    """A fresh run of a plan does not inherit the decisions of its earlier runs (they stay as history)."""
    store.write("agent/decisions_retire", plan=plan_id, run=run_id)


def args_text(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, ensure_ascii=False)

