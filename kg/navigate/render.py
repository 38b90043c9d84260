"""How answers look: rich tables for people, compact tab-separated text for agents (fewer tokens than JSON)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from kg.navigate.answers import Answer
from kg.render import inline


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


def table(answer: Answer, width: int = 160) -> Group:
    """The answer as a rich table with its notes, for a terminal `width` columns wide."""
    from rich.table import Table  # with fractions and decimal: only an answer shown as a table pays for them

    parts: list[Any] = []
    if answer.rows:
        t = Table(title=Text(inline(answer.title)), show_edge=False, title_justify="left")
        columns = shown_columns(answer.columns)
        cells = [[value(row, c) for c, _ in columns] for row in answer.rows]
        keep = max(12, min(_KEEP, width // max(1, len(columns))))
        for i, (column, header) in enumerate(columns):
            # Dotted names and places read badly folded mid-word: they keep up to _KEEP characters on one line
            # and the free-text columns give way first; a header never breaks.
            longest = max(len(r[i]) for r in cells)
            numeric = column in _NUMERIC
            t.add_column(header, justify="right" if numeric else "left", overflow="fold",
                         min_width=max(len(header), 0 if numeric or column in _FREE_TEXT else min(longest, keep)))
        for row_cells in cells:
            t.add_row(*(Text(v) for v in row_cells))
        parts.append(t)
    else:
        parts.append(Text(f"{inline(answer.title)}: none", style="yellow"))
    for note in answer.notes + ([answer.truncation_note()] if answer.truncated else []):
        parts.append(Text(inline(note), style="dim"))
    return Group(*parts)


_KEEP = 40
_FREE_TEXT = frozenset({"signature", "note", "doc", "how", "steps", "names", "modules", "why"})
_NUMERIC = frozenset({"depth", "confidence", "fan_in", "fan_out", "callers", "lines", "distance", "length", "uses"})
# A file column and its line column show as one `path:line` cell. A row with a call site has two places: where the
# call is (`call at`) and where the symbol is defined (`defined at`); they are different files more often than not.
_PLACES = {"path": "line", "call_path": "call_line"}


def shown_columns(columns: list[str]) -> list[tuple[str, str]]:
    """(column, header) pairs to show: each file column merged with its line column."""
    merged = {p for p, line in _PLACES.items() if p in columns and line in columns}
    hidden = {_PLACES[p] for p in merged}
    headers = {"path": "defined at" if "call_path" in merged else "at", "call_path": "call at"}
    return [(c, headers[c] if c in merged else c) for c in columns if c not in hidden]


def value(row: dict[str, Any], column: str) -> str:
    """One cell on one line (kg.render.inline): a merged place as `path:line`, anything else as `cell` shows it."""
    if column in _PLACES and _PLACES[column] in row:
        path, line = row.get(column), row.get(_PLACES[column])
        if path is None:
            return ""
        return inline(f"{path}:{line}" if line is not None else str(path))
    return inline(cell(row.get(column)))


def compact(answer: Answer) -> str:
    """The answer as a header line, a tab-separated table and notes: what an agent reads in few tokens."""
    count = answer.truncation_note() if answer.truncated else f"{answer.total} {answer.noun}"
    lines = [inline(f"{answer.title}: {count}")]
    if answer.rows:
        columns = [(c, h) for c, h in shown_columns(answer.columns)
                   if any(row.get(c) not in (None, "", []) for row in answer.rows)]
        lines.append("\t".join(h for _, h in columns))
        lines += ["\t".join(value(row, c) for c, _ in columns) for row in answer.rows]
    lines += [inline(note) for note in answer.notes]
    return "\n".join(lines)
