"""How answers and progress look: the compact text agents read, the rich tables people read, the progress bars.

Answers are built here the way kg.navigate.answers builds them from query rows; no database is needed to render.
"""

from __future__ import annotations

import io

from rich.console import Console

from kg.navigate.answers import FETCH_CAP, Answer
from kg.navigate.render import cell, compact, shown_columns, table, value
from kg.render import progress_bar

CALLER_COLUMNS = ["depth", "caller", "kind", "call_path", "call_line", "path", "line", "calls", "resolution",
                  "confidence"]
CALLER_ROWS = [
    {"depth": 1, "caller": "shop.cart.Cart.checkout", "kind": "method", "call_path": "shop/cart.py", "call_line": 41,
     "path": "shop/cart.py", "line": 30, "calls": None, "resolution": "self", "confidence": 1.0},
    {"depth": 2, "caller": "tests.test_cart.test_checkout", "kind": "function", "call_path": "tests/test_cart.py",
     "call_line": 12, "path": "tests/test_cart.py", "line": 10, "calls": None, "resolution": "inferred",
     "confidence": 0.5},
]


def callers(rows: list[dict] = CALLER_ROWS, total: int | None = None, notes: list[str] | None = None) -> Answer:
    return Answer("callers of shop.pricing.total", CALLER_COLUMNS, rows, len(rows) if total is None else total, 50,
                  "callers", notes or [])


def rendered(answer: Answer, width: int = 160) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, record=True)
    console.print(table(answer, width))
    return console.export_text()


# --- cells and places -------------------------------------------------------------------------------------------


def test_cells() -> None:
    assert (cell(None), cell(0.456), cell(3), cell(["a", 1.0]), cell([])) == ("", "0.46", "3", "a, 1.00", "")
    steps = [{"caller": "a.f", "callee": "a.g", "line": 3, "confidence": 1.0},
             {"caller": "a.g", "callee": "b.h", "line": 9, "confidence": 0.5}]
    assert cell(steps) == "a.f → a.g (l.3, 1.00) → b.h (l.9, 0.50)"


def test_places_merge_a_file_and_its_line_into_one_column() -> None:
    assert shown_columns(CALLER_COLUMNS) == [
        ("depth", "depth"), ("caller", "caller"), ("kind", "kind"), ("call_path", "call at"), ("path", "defined at"),
        ("calls", "calls"), ("resolution", "resolution"), ("confidence", "confidence")]
    assert shown_columns(["symbol", "path", "line"]) == [("symbol", "symbol"), ("path", "at")]
    assert shown_columns(["path", "kind"]) == [("path", "path"), ("kind", "kind")]  # no line column: nothing merged
    assert value(CALLER_ROWS[0], "call_path") == "shop/cart.py:41"
    assert value({"path": "a.py", "line": None}, "path") == "a.py"
    assert value({"path": None, "line": 3}, "path") == ""


# --- compact (agents) -------------------------------------------------------------------------------------------


def test_compact_is_a_header_a_tab_separated_table_and_the_notes() -> None:
    text = compact(callers(notes=["2 calls by name only"]))
    header, columns, first, second, note = text.split("\n")
    assert header == "callers of shop.pricing.total: 2 callers"
    assert columns.split("\t") == ["depth", "caller", "kind", "call at", "defined at", "resolution", "confidence"]
    assert first.split("\t") == ["1", "shop.cart.Cart.checkout", "method", "shop/cart.py:41", "shop/cart.py:30",
                                 "self", "1.00"]
    assert second.split("\t")[3] == "tests/test_cart.py:12"
    assert note == "2 calls by name only"


def test_compact_header_of_a_cut_answer_says_what_was_left_out() -> None:
    assert compact(callers(total=7)).split("\n")[0] == (
        "callers of shop.pricing.total: showing 2 of 7 callers (raise the limit to see more)")
    assert compact(callers(total=FETCH_CAP)).split("\n")[0].endswith(
        f"showing 2 of at least {FETCH_CAP:,} callers (raise the limit to see more)")


def test_compact_of_an_empty_answer_is_its_header() -> None:
    assert compact(callers(rows=[])) == "callers of shop.pricing.total: 0 callers"


# --- tables (people) --------------------------------------------------------------------------------------------


def test_table_shows_places_headers_and_every_row() -> None:
    text = rendered(callers(total=9, notes=["a note"]))
    assert text.startswith("callers of shop.pricing.total")
    for expected in ("call at", "defined at", "shop/cart.py:41", "tests.test_cart.test_checkout", "0.50", "a note",
                     "showing 2 of 9 callers"):
        assert expected in text, expected
    assert "call_line" not in text and "\tcalls" not in text


def test_table_keeps_dotted_names_whole_when_wide_and_fits_a_narrow_terminal() -> None:
    wide = rendered(callers(), width=160)
    assert "tests.test_cart.test_checkout" in wide and "tests/test_cart.py:12" in wide
    narrow = rendered(callers(), width=80)
    assert max(len(line.rstrip()) for line in narrow.splitlines()) <= 80
    assert "tests.test_cart.test_checkout" not in narrow and "ckout" in narrow  # folded, not cut off


def test_an_empty_table_says_none() -> None:
    assert rendered(callers(rows=[])).strip() == "callers of shop.pricing.total: none"


# --- progress ---------------------------------------------------------------------------------------------------


def test_progress_bar_draws_one_bar_per_stage_and_lines_printed_meanwhile_go_above() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None)  # not a terminal: the last frame only
    with progress_bar(True, console=console, transient=False) as progress:
        progress("parse", 3, 10)
        console.print("a line")
        progress("write", 1, 4)
        progress("parse", 10, 10)
    lines = [line.split() for line in console.file.getvalue().splitlines()]
    assert [(line[0], line[-2]) for line in lines[1:]] == [("parse", "10/10"), ("write", "1/4")]
    assert lines[0] == ["a", "line"]


def test_a_disabled_progress_bar_draws_nothing() -> None:
    console = Console(file=io.StringIO(), width=100, force_terminal=True, record=True)
    with progress_bar(False, console=console) as progress:
        progress("parse", 3, 10)
    assert console.export_text() == ""
