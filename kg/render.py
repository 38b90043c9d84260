"""How results look on a terminal: rich tables and progress, kept apart from the commands that produce them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A `progress(stage, done, total)` callback drawing one bar per stage; a no-op when not on a terminal."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    tasks: dict[str, Any] = {}
    with Progress(TextColumn("{task.description:>6}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  transient=True) as bar:
        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


def ingest_summary(report: Any, max_skipped: int = 12) -> Group:
    head = Text.assemble(
        (f"{report.repo}", "bold"), f"  {report.files:,} code files · {report.documents:,} documents · ",
        f"{report.written:,} written · {report.reresolved:,} re-resolved · {report.deleted:,} deleted · ",
        f"{report.unchanged:,} unchanged · {report.seconds:.2f} s (parse {report.parse_seconds:.2f} s)")
    parts: list[Any] = [head]
    if report.edges:
        table = Table(show_edge=False, box=None, padding=(0, 2))
        table.add_column("edges written", style="bold")
        table.add_column("count", justify="right")
        for kind, count in sorted(report.edges.items()):
            table.add_row(kind, f"{count:,}")
        for resolution, count in sorted(report.calls_by_resolution.items(), key=lambda kv: -kv[1]):
            table.add_row(f"  CALLS by {resolution}", f"{count:,}")
        parts.append(table)
    if report.symbols:
        parts.append(Text(f"symbols in the repository: {report.symbols:,}"))
    if report.syntax_errors:
        parts.append(Text(f"{len(report.syntax_errors)} files had syntax errors (kept what parsed): "
                          + ", ".join(sorted(report.syntax_errors)[:5]), style="yellow"))
    if report.bad_encoding:
        parts.append(Text(f"{len(report.bad_encoding)} files are not valid UTF-8 (read with replacement): "
                          + ", ".join(report.bad_encoding[:5]), style="yellow"))
    if report.skipped:
        parts.append(Text(f"skipped {len(report.skipped)} files:", style="yellow"))
        for path, reason in report.skipped[:max_skipped]:
            parts.append(Text(f"  {path}: {reason}"))
        if len(report.skipped) > max_skipped:
            parts.append(Text(f"  … and {len(report.skipped) - max_skipped} more (--json lists all)"))
    return Group(*parts)
