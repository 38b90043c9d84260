"""How results look on a terminal: rich tables and progress, kept apart from the commands that produce them; and
the one place that keeps text from the graph (names, docstrings, file names, document chunks, decisions, LLM
output) from acting on the terminal instead of being shown."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console, ConsoleOptions, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

# What a terminal acts on rather than shows: C0 controls but newline and tab, DEL, the C1 controls (ESC and CSI start
# colour changes, screen clears, window titles, OSC 8 links, OSC 52 clipboard writes) and the bidirectional
# overrides and isolates that reorder what is shown ("Trojan Source").
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ESC shows as ␛
    return "\u2421" if code == 0x7F else "\ufffd"


def clean(text: str) -> str:
    """`text` safe to show on a terminal: every control or reordering character replaced by a visible mark."""
    return _UNSAFE.sub(_visible, text)


# What breaks a line or a column where kg prints one value (a name, a path) per cell or per line.
_BREAKS = {0x0A: "\u2424", 0x09: "\u2409", 0x2028: "\u2424", 0x2029: "\u2424"}  # ␤ ␉


def inline(text: str) -> str:
    """`text` as one value on one line: `clean`, and newlines and tabs shown as ␤ and ␉ too, so a name from the
    graph (a file named `a\nb.py`) cannot forge a row, a line or a column of what is printed."""
    return clean(text).translate(_BREAKS)


def echo(text: str) -> None:
    """click.echo for text that may come from the graph (paths, test ids, a context, an LLM's message)."""
    click.echo(clean(text))


class _Shown:
    """A renderable whose text is shown, never obeyed: each text segment cleaned and stripped of hyperlinks (kg
    prints none of its own, so a link comes from `[link=…]` markup in some interpolated text). Rich's own control
    segments (cursor moves for progress bars) pass."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control:
                yield segment
            else:
                style = segment.style.clear_meta_and_links() if segment.style and segment.style.link else segment.style
                yield Segment(clean(segment.text), style)


class _ShowOnly(RenderHook):
    def process_renderables(self, renderables: list[Any]) -> list[Any]:
        return [_Shown(r) for r in renderables]


def guarded(console: Console) -> Console:
    """`console` with every print passed through `_Shown` (the render boundary of kg's CLI)."""
    console.push_render_hook(_ShowOnly())
    return console


@contextmanager
def progress_bar(enabled: bool, console: Console | None = None,
                 transient: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """A `progress(stage, done, total)` callback drawing one bar per stage on `console`; a no-op when not enabled.
    What is printed on the same console meanwhile appears above the bars; transient bars vanish when done."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    tasks: dict[str, Any] = {}
    with Progress(TextColumn("{task.description:>6}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=transient) as bar:
        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


