"""Text from the graph is shown on the terminal, never obeyed: a repository whose docstrings, default values, file
names and decisions hold raw escape sequences (colours, screen clear, window title, OSC 52 clipboard write) and rich
markup (`[link=…]`). Real Neo4j, real files, the real `kg` in a subprocess with FORCE_COLOR (as on a terminal: rich
emits styles and links only there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.settings import Settings
from kg.store import Store

ESC = "\x1b"
TITLE = f"{ESC}]0;PWNED-TITLE\x07"
CLIPBOARD = f"{ESC}]52;c;ZXZpbA==\x07"
CLEAR = f"{ESC}[2J"
COLOUR = f"{ESC}[38;5;123m"  # a colour kg never uses itself
LINK = "[link=https:evil.example]"
RLO = "\u202e"
HOSTILE = (TITLE, CLIPBOARD, CLEAR, COLOUR, RLO, "\x07", "\x9b")


@pytest.fixture
def hostile_repo(store: Store, tmp_path: Path) -> Path:
    root = tmp_path / "esc"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "evil.py").write_text(
        f'def esc(a="{TITLE}{CLEAR}"):\n'
        f'    """Doc {COLOUR}red{ESC}[0m {LINK}click here {CLIPBOARD} {RLO}gnp.exe \x9b31m"""\n'
        "    return a\n")
    (root / "pkg" / f"w{LINK}x{COLOUR}.py").write_text("def lonely():\n    return 1\n")
    Ingestor(store, root, repo="esc").run()
    return root


def kg(settings: Settings, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KG_BOLT_PORT": str(settings.bolt_port), "KG_HTTP_PORT": str(settings.http_port),
           "KG_DATA_DIR": str(settings.data_dir), "FORCE_COLOR": "1", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "kg", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def assert_shown_not_obeyed(text: str) -> None:
    for sequence in HOSTILE:
        assert sequence not in text, repr(sequence)
    assert f"{ESC}]" not in text  # no OSC at all: no title, clipboard or hyperlink (OSC 8)


def test_ingested_text_reaches_the_terminal_as_visible_marks(hostile_repo: Path, graph_settings: Settings) -> None:
    shown = ""
    for args in (["find", "esc", "--repo", "esc"], ["memory", "show", "pkg.evil.esc", "--repo", "esc"],
                 ["dead-code", "--repo", "esc", "--maybe", "--public"]):
        done = kg(graph_settings, hostile_repo, *args)
        assert done.returncode == 0, done.stderr
        assert_shown_not_obeyed(done.stdout + done.stderr)
        shown += done.stdout
    assert "PWNED-TITLE" in shown and "␛" in shown  # the text is still there, its ESC shown as a mark
    assert LINK in shown  # markup in a docstring or a file name is shown as written


def test_a_decision_and_an_error_message_are_shown_not_obeyed(hostile_repo: Path, graph_settings: Settings) -> None:
    decided = kg(graph_settings, hostile_repo, "decide", f"esc keeps its default {TITLE}{CLEAR} {LINK}x",
                 "--about", "pkg.evil.esc", "--repo", "esc")
    assert decided.returncode == 0, decided.stderr
    listed = kg(graph_settings, hostile_repo, "decisions", "--about", "pkg.evil.esc", "--repo", "esc")
    assert listed.returncode == 0 and "PWNED-TITLE" in listed.stdout
    assert_shown_not_obeyed(listed.stdout + listed.stderr + decided.stdout + decided.stderr)
    # an error quotes what was typed: through rich markup before, so `[link=…]` became a hyperlink
    failed = kg(graph_settings, hostile_repo, "callers", f"nothing{LINK}here{CLEAR}", "--repo", "esc")
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1
    assert LINK in failed.stderr
    assert_shown_not_obeyed(failed.stderr)


def test_json_output_escapes_control_characters_itself(hostile_repo: Path, graph_settings: Settings) -> None:
    done = kg(graph_settings, hostile_repo, "find", "esc", "--repo", "esc", "--json")
    assert done.returncode == 0 and ESC not in done.stdout and "\\u001b" in done.stdout
    assert any("PWNED-TITLE" in json.dumps(row) for row in json.loads(done.stdout)["rows"])


def test_clean_marks_every_unsafe_character_and_keeps_the_rest() -> None:
    from kg.render import clean

    assert clean(f"a{ESC}[2Jb\x07c\x9bd{RLO}e\tf\ng") == "a␛[2Jb␇c\ufffdd\ufffde\tf\ng"
    assert clean("Cart.checkout — ok ünïcode") == "Cart.checkout — ok ünïcode"


def test_a_newline_or_tab_in_a_file_name_forges_no_line_row_or_column(store: Store, graph_settings: Settings,
                                                                      tmp_path: Path) -> None:
    """A file named `pkg/nl<newline>injected.py` (git can carry one): tables, plain rows and the MCP text show the
    name on one line with ␤; JSON keeps the name as it is."""
    root = tmp_path / "nl"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "nl\ninjected.py").write_text("def y():\n    return 1\n\n\ndef x():\n    return y()\n")
    (root / "pkg" / "tab\tbed.py").write_text("def lonely():\n    return 1\n")
    Ingestor(store, root, repo="nl").run()
    callers = kg(graph_settings, root, "callers", "pkg.nl\ninjected.y", "--repo", "nl")
    assert callers.returncode == 0, callers.stderr
    assert "callers of pkg.nl␤injected.y" in callers.stdout and "pkg.nl␤injected.x" in callers.stdout
    assert not [line for line in callers.stdout.splitlines() if line.lstrip().startswith("injected")], callers.stdout
    found = kg(graph_settings, root, "find", "lonely", "--repo", "nl")
    assert "pkg/tab␉bed.py" in found.stdout and "\t" not in found.stdout
    from kg.navigate import answers
    from kg.navigate.render import compact

    text = compact(answers.callers(store, "pkg.nl\ninjected.y", repo="nl"))
    assert text.splitlines()[0].startswith("callers of pkg.nl␤injected.y") and len(text.splitlines()) == 3
    as_json = kg(graph_settings, root, "find", "lonely", "--repo", "nl", "--json")
    assert json.loads(as_json.stdout)["rows"][0]["path"] == "pkg/tab\tbed.py"
    # attack4 B5: `kg changes` printed the changed file's name raw in its table and warning line
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", *args],
                       check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "one")
    (root / "pkg" / "nl\ninjected.py").write_text("def y():\n    return 2\n\n\ndef x():\n    return y()\n")
    changed = kg(graph_settings, root, "changes", "--repo", "nl")  # not ingested since: the warning names it too
    assert changed.returncode == 0, changed.stderr
    assert "pkg/nl␤injected.py" in changed.stdout and "pkg/nl␤injected.py" in changed.stderr
    assert not [line for line in (changed.stdout + changed.stderr).splitlines()
                if line.lstrip().startswith("injected")], changed.stdout + changed.stderr
