"""How answers look: rich tables for people, compact tab-separated text for agents (fewer tokens than JSON)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from kg.navigate.answers import Answer


def cell(value: Any) -> str:
    """One value as short text: floats to two decimals, lists joined, path steps as `a → b`."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "caller" in value[0]:
            return " → ".join([value[0]["caller"]] + [f"{s['callee']} ({_step(s)})" for s in value])
        return ", ".join(cell(v) for v in value)
    return str(value)


def _step(step: dict[str, Any]) -> str:
    """`l.12, 1.00` for a static call; `observed via library, 1.00` for one `kg observe` saw."""
    where = f"l.{step['line']}" if step.get("line") is not None else str(step.get("resolution") or "")
    return f"{where}, {step['confidence']:.2f}"


def table(answer: Answer) -> Group:
    """The answer as a rich table with its notes, for a terminal."""
    parts: list[Any] = []
    if answer.rows:
        t = Table(title=Text(answer.title), show_edge=False, title_justify="left")
        merged = "path" in answer.columns and "line" in answer.columns  # one `at` column: path:line
        columns = [c for c in answer.columns if not (merged and c == "line")]
        for column in columns:
            t.add_column("at" if merged and column == "path" else column, overflow="fold",
                         justify="right" if column in _NUMERIC else "left")
        for row in answer.rows:
            t.add_row(*(Text(_at(row) if merged and c == "path" else cell(row.get(c))) for c in columns))
        parts.append(t)
    else:
        parts.append(Text(f"{answer.title}: none", style="yellow"))
    for note in answer.notes + ([answer.truncation_note()] if answer.truncated else []):
        parts.append(Text(note, style="dim"))
    return Group(*parts)


_NUMERIC = frozenset({"depth", "confidence", "fan_in", "fan_out", "callers", "lines", "distance", "length", "uses"})


def _at(row: dict[str, Any]) -> str:
    if row.get("path") is None:
        return ""
    return f"{row['path']}:{row['line']}" if row.get("line") is not None else str(row["path"])


def compact(answer: Answer) -> str:
    """The answer as a header line, a tab-separated table and notes: what an agent reads in few tokens."""
    lines = [f"{answer.title}: {answer.total if not answer.truncated else answer.truncation_note()}"
             if answer.truncated else f"{answer.title}: {answer.total} {answer.noun}"]
    if answer.rows:
        columns = [c for c in answer.columns if any(row.get(c) not in (None, "", []) for row in answer.rows)]
        lines.append("\t".join(columns))
        lines += ["\t".join(cell(row.get(c)) for c in columns) for row in answer.rows]
    lines += answer.notes
    return "\n".join(lines)
