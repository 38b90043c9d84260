"""`.agent/memory.yaml`: how sure an agent must be for its decisions to count, and the audit's patience.

    confirm_threshold: 0.8        agent and MCP decisions at or above it land `confirmed`, below it `proposed`;
                                  anything below it is shown as unverified wherever it appears
    duplicate_similarity: 0.7     wording this similar to an active decision about the same target: a duplicate
    contradiction_similarity: 0.6 this similar and a flipped negation/antonym/number: a contradiction
    unused_after_runs: 5          agent runs on the repository without loading a decision before audit calls it unused
    llm_check: false              also ask the OpenAI-compatible LLM of KG_LLM_BASE_URL/KG_LLM_MODEL (never required)

The file comes with the repository, and an agent's decisions must not confirm themselves because a repository says
so: the file may raise confirm_threshold, never lower it below the default, and may lower the similarities that flag
duplicates and contradictions, never raise them (a looser value is ignored with a note).
The person at the keyboard sets any value with KG_CONFIRM_THRESHOLD, which wins over the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

import yaml

from kg.errors import ConfigError

MEMORY_FILE = Path(".agent") / "memory.yaml"
USER_THRESHOLD = "KG_CONFIRM_THRESHOLD"  # the user's own confirm_threshold, any value from 0 to 1


@dataclass(frozen=True)
class MemoryConfig:
    confirm_threshold: float = 0.8
    duplicate_similarity: float = 0.7
    contradiction_similarity: float = 0.6
    unused_after_runs: int = 5
    llm_check: bool = False
    note: str | None = field(default=None, compare=False)  # what of the file was ignored, in one line


CONFIRM_FLOOR = MemoryConfig.confirm_threshold  # the lowest confirm_threshold a repository's file may set
# What a repository's file may only make stricter: confirm_threshold up (+1); the similarities above which a new
# decision is flagged as a duplicate or a contradiction down (-1: at 1.0 nothing would ever be flagged).
_STRICTER = {"confirm_threshold": 1, "duplicate_similarity": -1, "contradiction_similarity": -1}


def load(project: Path) -> MemoryConfig:
    """The project's memory settings; defaults when the file is missing, a one-line ConfigError when it is wrong."""
    path = Path(project) / MEMORY_FILE
    if not path.is_file():
        return _guarded({}, path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where} is not valid YAML: fix it or delete it") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of settings ({', '.join(f.name for f in fields(MemoryConfig))})")
    known = {f.name: f for f in fields(MemoryConfig) if f.name != "note"}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r} (known: {', '.join(known)})")
    values = {}
    for name, value in data.items():
        kind = type(getattr(MemoryConfig, name))
        if kind is float and isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            values[name] = float(value)
        elif kind is int and isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            values[name] = value
        elif kind is bool and isinstance(value, bool):
            values[name] = value
        else:
            expected = {float: "a number from 0 to 1", int: "a whole number ≥ 1", bool: "true or false"}[kind]
            raise ConfigError(f"{path}: {name} must be {expected}, not {value!r}")
    return _guarded(values, path)


def _guarded(values: dict, path: Path) -> MemoryConfig:
    """The file's values where they only make memory stricter; the threshold the user set (KG_CONFIRM_THRESHOLD)
    wins over the file's."""
    user = os.environ.get(USER_THRESHOLD)
    if user:
        try:
            threshold = float(user)
        except ValueError:
            threshold = -1.0
        if not 0 <= threshold <= 1:
            raise ConfigError(f"{USER_THRESHOLD} must be a number from 0 to 1, not {user[:40]!r}")
        values = {**values, "confirm_threshold": threshold}
    ignored = []
    for name, direction in _STRICTER.items():
        if name == "confirm_threshold" and user:
            continue
        default = getattr(MemoryConfig, name)
        if name in values and (values[name] - default) * direction < 0:
            ignored.append(f"{name} {values[name]:g}")
            values[name] = default
    if not ignored:
        return MemoryConfig(**values)
    return MemoryConfig(**values, note=f"{path} sets {', '.join(ignored)}, ignored: a repository may make memory "
                                       f"stricter, not looser (set your own confirm_threshold with {USER_THRESHOLD})")
