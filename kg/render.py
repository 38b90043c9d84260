"""How results look on a terminal: rich tables and progress, kept apart from the commands that produce them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


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
