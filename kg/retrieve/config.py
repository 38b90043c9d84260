"""Strategies and budgets as configuration: `.agent/orchestrator.yaml` and `.agent/budget.yaml` in the project.

orchestrator.yaml — for each task type, the sections a context loads, in order (the order is also what survives
a tight budget), and the degradation steps to take, in order, when the context does not fit:

    types:
      read:     {load: [files, map, summaries, docs]}
      modify:   {load: [files, code, call_graph, tests, decisions], call_depth: 2}
      debug:    {load: [files, code, recent_changes, memory, call_graph]}
      refactor: {load: [files, impact, summaries, tests, decisions], call_depth: 3}
    degrade: [code_to_summaries, call_graph_to_direct, summaries_to_oneline, fewer_files, cut]

budget.yaml — tokens per context call, per task (an agent run, or one task text) and per day, and the share of a
budget at which an alert is recorded:

    per_call: 6000
    per_task: 60000
    per_day: 1000000
    alert_at: 0.8

Both files are optional (these are the defaults) and validated on load; a wrong value is one line naming the
file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kg.errors import ConfigError
from kg.source_files import read_config

TaskType = Literal["read", "modify", "debug", "refactor"]
TASK_TYPES: tuple[str, ...] = ("read", "modify", "debug", "refactor")
Section = Literal["files", "map", "summaries", "code", "call_graph", "impact", "tests", "docs", "decisions",
                  "recent_changes", "memory"]
Step = Literal["code_to_summaries", "call_graph_to_direct", "summaries_to_oneline", "fewer_files", "cut"]

ORCHESTRATOR_FILE = Path(".agent") / "orchestrator.yaml"
BUDGET_FILE = Path(".agent") / "budget.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Strategy(_Strict):
    load: tuple[Section, ...] = Field(min_length=1)
    files: int = Field(default=8, ge=1, le=50)  # ranked files the sections draw on
    call_depth: int = Field(default=1, ge=1, le=3)  # callers/callees hops when the call graph is loaded


class Orchestrator(_Strict):
    types: dict[TaskType, Strategy] = Field(default_factory=lambda: dict(DEFAULT_STRATEGIES))
    degrade: tuple[Step, ...] = ("code_to_summaries", "call_graph_to_direct", "summaries_to_oneline", "fewer_files",
                                 "cut")

    def strategy(self, task_type: str) -> Strategy:
        return self.types.get(task_type) or DEFAULT_STRATEGIES[task_type]  # type: ignore[index]


DEFAULT_STRATEGIES: dict[str, Strategy] = {
    "read": Strategy(load=("files", "map", "summaries", "docs")),
    "modify": Strategy(load=("files", "code", "call_graph", "tests", "decisions"), call_depth=2),
    "debug": Strategy(load=("files", "code", "recent_changes", "memory", "call_graph")),
    "refactor": Strategy(load=("files", "impact", "summaries", "tests", "decisions"), call_depth=3),
}


class Budget(_Strict):
    per_call: int = Field(default=6000, ge=200)
    per_task: int = Field(default=60_000, ge=200)
    per_day: int = Field(default=1_000_000, ge=200)
    alert_at: float = Field(default=0.8, gt=0, le=1)


_M = TypeVar("_M", bound=BaseModel)


def load_orchestrator(project: Path) -> Orchestrator:
    return _load(project / ORCHESTRATOR_FILE, Orchestrator)


def load_budget(project: Path) -> Budget:
    return _load(project / BUDGET_FILE, Budget)


def _load(path: Path, model: type[_M]) -> _M:
    if not path.exists():
        return model()
    try:
        data = yaml.safe_load(read_config(path))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where} is not valid YAML: fix it or delete it") from e
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror or e}") from e
    try:
        return model.model_validate(data or {})
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        got = f" (got {first['input']!r})" if "input" in first and not isinstance(first["input"], dict) else ""
        raise ConfigError(f"{path}: `{key}`: {first['msg'].lower()}{got}") from e
