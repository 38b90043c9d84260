"""How results look on a terminal: rich tables and progress, kept apart from the commands that produce them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def progress_bar(enabled: bool, console: Console | None = None,
                 transient: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """A `progress(stage, done, total)` callback drawing one bar per stage on `console`; a no-op when not enabled.
    What is printed on the same console meanwhile appears above the bars; transient bars vanish when done."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    tasks: dict[str, Any] = {}
    with Progress(TextColumn("{task.description:>6}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=transient) as bar:
        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update
