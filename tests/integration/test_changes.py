"""`kg changes` on a real project with its own test suite: inject a fault, ask kg which tests to run, run them all.

The project is click 8.1.7 from its sdist (611 tests, offline, a few seconds; run with this venv's pytest and the
copy's own `src/` first on the path). The check that matters: every test the fault makes fail is one kg selected.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.navigate.changes import changes, parse_diff
from kg.settings import Settings
from kg.store import Store
from tests.sdists import sdist

FAILED = re.compile(r"^(?:FAILED|ERROR) (?P<id>\S+)")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def inject_fault(path: Path, qualname: str) -> None:
    """Make `qualname` (e.g. `HelpFormatter.write_usage`) raise as its first statement."""
    source = path.read_text()
    scope: list[ast.AST] = [ast.parse(source)]
    for part in qualname.split("."):
        scope = [n for s in scope for n in ast.iter_child_nodes(s)
                 if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part]
    (func,) = scope
    first = func.body[0]
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f'{indent}raise RuntimeError("fault injected by kg test")\n')
    path.write_text("".join(lines))


def run_suite(root: Path) -> tuple[set[str], int]:
    """Failing test ids (parameters stripped) and how many tests ran."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-o",
                           "filterwarnings=", "tests"], cwd=root, capture_output=True,
                          text=True, env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"}, timeout=300)
    failed = {re.sub(r"\[.*$", "", m["id"]) for line in done.stdout.splitlines() if (m := FAILED.match(line))}
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|xfailed|errors?)", done.stdout)}
    return failed, sum(counts.values())


@pytest.fixture(scope="module")
def click_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("click") / "click"
    shutil.copytree(sdist("click", "8.1.7"), root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "click 8.1.7")
    return root


@pytest.mark.parametrize(("file", "function"), [
    ("src/click/formatting.py", "HelpFormatter.write_usage"),
    ("src/click/types.py", "IntRange._clamp"),
    # Tests that call methods on a function a decorator made a Command (`@click.command() def cli(); cli.main()`):
    # reached only because ingest gives such methods the name_only candidates of an object of unknown type.
    ("src/click/parser.py", "_unpack_args"),
])
def test_every_failing_test_is_among_the_selected(store: Store, click_checkout: Path, file: str,
                                                  function: str) -> None:
    root = click_checkout
    git(root, "checkout", "-q", "--", ".")
    inject_fault(root / file, function)
    Ingestor(store, root, repo="clickfault").run()  # the graph reflects the working tree, as with --watch

    report = changes(store, root, test_depth=10, limit=5000)
    assert [c["qname"] for c in report.changed] == [f"click.{Path(file).stem}.{function}"]
    selected = {row["test"] for row in report.tests.rows}

    failed, total = run_suite(root)
    git(root, "checkout", "-q", "--", ".")
    assert failed, f"the fault in {function} made no test fail"
    print(f"\n{function}: kg selected {len(selected)} of {total} tests; {len(failed)} failed, "
          f"{len(failed - selected)} of them not selected")
    assert failed <= selected, f"failing tests kg did not select: {sorted(failed - selected)}"


def test_parse_diff_maps_hunks_to_new_lines() -> None:
    diff = (
        "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -3,0 +4,2 @@ def f():\n+    x = 1\n+    y = 2\n"
        "@@ -10 +12 @@\n-a\n+b\n@@ -20,3 +21,0 @@\n-c\n-d\n-e\n"
        "diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n"
    )
    files = parse_diff(diff)
    assert [(f.path, sorted(f.lines), f.deleted) for f in files] == [
        ("m.py", [4, 5, 12, 21, 22], False), ("gone.py", [], True)]


def test_parse_diff_reads_hunks_by_their_lengths() -> None:
    """An added line `++ counter` shows as `+++ counter` and a removed `-- x` as `--- x`: content, not headers
    (issue 15.2)."""
    diff = (
        "diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n@@ -2,2 +2,3 @@\n--- x\n--- /dev/null\n"
        "+++ counter\n+++ /dev/null\n+y\n\\ No newline at end of file\n"
        "diff --git a/d.py b/d.py\n--- a/d.py\n+++ b/d.py\n@@ -7 +7 @@\n-a\n+b\n"
    )
    assert [(f.path, sorted(f.lines), f.deleted) for f in parse_diff(diff)] == [
        ("c.py", [2, 3, 4], False), ("d.py", [7], False)]


def test_parse_diff_unquotes_the_paths_git_quotes() -> None:
    diff = (
        'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\n--- "a/caf\\303\\251.py"\n+++ "b/caf\\303\\251.py"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
        'diff --git "a/tab\\there.py" "b/tab\\there.py"\n--- "a/tab\\there.py"\n+++ "b/tab\\there.py"\n'
        "@@ -1 +1,2 @@\n-a\n+b\n+c\n"
        "diff --git a/with space.py b/with space.py\n--- a/with space.py\t\n+++ b/with space.py\t\n"
        "@@ -3 +3 @@\n-a\n+b\n"
    )
    assert [(f.path, sorted(f.lines)) for f in parse_diff(diff)] == [
        ("café.py", [1]), ("tab\there.py", [1, 2]), ("with space.py", [3])]


def test_git_diff_of_non_ascii_paths_and_plus_lines_end_to_end(tmp_path: Path) -> None:
    """Real git output (the repository's own diff prefixes and quoting settings notwithstanding) read back right."""
    from kg.navigate.changes import git_diff

    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "diff.noprefix", "true")  # would drop the a/ b/ prefixes kg reads
    git(root, "config", "diff.mnemonicPrefix", "true")
    (root / "café.py").write_text("x = 1\ny = 2\n")
    (root / "plain.py").write_text("a = 1\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "one")
    (root / "café.py").write_text("x = 1\n++ counter\ny = 3\n")
    (root / "plain.py").write_text("-- a\n")
    files = parse_diff(git_diff(root)[0])
    assert [(f.path, sorted(f.lines)) for f in files] == [("café.py", [2, 3]), ("plain.py", [1])]


def _small_repo(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text("import os\n\n\ndef join(a, b):\n    return os.path.join(a, b)\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "one")


def test_a_new_function_after_blank_lines_does_not_change_its_module(store: Store, tmp_path: Path) -> None:
    """newuser3 #7: the two blank lines before an added function made the module "changed", so every importer was
    impacted. Blank and comment-only lines touch nothing; a removed line of code still touches its place."""
    root = tmp_path / "r"
    _small_repo(root)
    helpers = root / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n\n# a helper\ndef split(p):\n    return os.path.split(p)\n")
    Ingestor(store, root, repo="chblank").run()
    report = changes(store, root)
    assert [c["qname"] for c in report.changed] == ["pkg.helpers.split"]
    assert report.behind == [] and report.warning() is None

    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-qam", "two")
    helpers.write_text(helpers.read_text().replace("import os\n", ""))  # module-level code removed
    Ingestor(store, root, repo="chblank").run()
    assert "pkg.helpers" in [c["qname"] for c in changes(store, root).changed]


def test_changes_says_when_the_graph_is_behind_the_diff(store: Store, tmp_path: Path) -> None:
    """newuser3 #6: a diff matched against a graph that holds an older copy of the file named the wrong symbol
    silently; now the report names the files the graph is behind on (and a new file never ingested)."""
    root = tmp_path / "r"
    _small_repo(root)
    Ingestor(store, root, repo="chbehind").run()
    helpers = root / "pkg" / "helpers.py"
    helpers.write_text("def first():\n    return 1\n\n\n" + helpers.read_text())  # not re-ingested
    (root / "pkg" / "fresh.py").write_text("def new():\n    return 2\n")
    git(root, "add", "-N", "pkg/fresh.py")
    report = changes(store, root)
    assert report.behind == ["pkg/fresh.py", "pkg/helpers.py"]
    assert "run `kg ingest" in report.warning() and report.to_dict()["behind"] == report.behind

    Ingestor(store, root, repo="chbehind").run()
    report = changes(store, root)
    assert report.behind == [] and report.warning() is None
    assert [c["qname"] for c in report.changed] == ["pkg.fresh.new", "pkg.helpers.first"]


def test_a_fifo_or_socket_in_the_tree_is_left_out_of_the_diff_and_named(store: Store, tmp_path: Path) -> None:
    """attack4 B6: one tracked file replaced by a FIFO made `git diff` (so the whole of `kg changes`) fail with
    "unsupported file type". Such paths are left out of the diff and named in the one warning line; the rest of
    the change is still answered. The ingest walk skips them too (it never opens a FIFO, which would block)."""
    import socket

    root = tmp_path / "r"
    _small_repo(root)
    (root / "pkg" / "extra.py").write_text("X = 1\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "two")
    Ingestor(store, root, repo="chfifo").run()
    helpers = root / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n\ndef split(p):\n    return os.path.split(p)\n")
    (root / "pkg" / "__init__.py").unlink()
    os.mkfifo(root / "pkg" / "__init__.py")
    (root / "pkg" / "extra.py").unlink()
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(root / "pkg" / "extra.py"))
        report = Ingestor(store, root, repo="chfifo").run()
        assert report.deleted == 2 and report.written == 1  # neither special file read as a module
        answer = changes(store, root)
        assert [c["qname"] for c in answer.changed] == ["pkg.helpers.split"]
        assert answer.special == ["pkg/__init__.py", "pkg/extra.py"]
        warning = answer.warning()
        assert warning is not None and "\n" not in warning
        assert "2 tracked path(s) are not regular files" in warning and "pkg/__init__.py, pkg/extra.py" in warning
        assert answer.to_dict()["not_diffed"] == ["pkg/__init__.py", "pkg/extra.py"]


def test_the_run_line_keeps_guessed_tests_out(store: Store, graph_settings: Settings, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser5 #7: after a one-line edit `kg changes` ended in `run: pytest <136 ids>`, most of them reached only
    through 0.5-confidence guesses. The guesses stay listed (and in --pytest, which is complete) but off the run line,
    which a dim line says how many it left out and why."""
    from click.testing import CliRunner

    from kg.cli import cli

    root = tmp_path / "g"
    root.mkdir()
    git(root, "init", "-q")
    (root / "pk").mkdir()
    (root / "tests").mkdir()
    (root / "pk" / "a.py").write_text("class Thing:\n    def go(self):\n        return 1\n")
    (root / "tests" / "test_a.py").write_text(
        "from pk.a import Thing\n\n\ndef test_direct():\n    assert Thing().go() == 1\n\n\n"
        "def test_by_name(thing):\n    assert thing.go() == 1  # a method of an object of unknown type: a guess\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "one")
    a = root / "pk" / "a.py"
    a.write_text(a.read_text().replace("return 1", "return 1  # edited"))
    Ingestor(store, root, repo="guesses").run()

    report = changes(store, root)
    rows = {r["test"]: r["confidence"] for r in report.tests.rows}
    assert rows == {"tests/test_a.py::test_direct": 1.0, "tests/test_a.py::test_by_name": 0.5}
    assert report.pytest_args(guesses=False) == ["tests/test_a.py::test_direct"]
    assert report.guessed_args() == ["tests/test_a.py::test_by_name"]
    assert sorted(report.pytest_args()) == sorted(rows)

    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    monkeypatch.chdir(root)
    runner = CliRunner()
    text = runner.invoke(cli, ["changes"], env=env, catch_exceptions=False).output
    lines = text.splitlines()
    assert "run: pytest tests/test_a.py::test_direct" in lines, text  # was: both, the guess first
    assert "tests/test_a.py::test_by_name" in text  # still listed in the table
    assert "+1 test(s) reaching it only through a guessed call (confidence below 0.6)" in " ".join(text.split())
    machine = runner.invoke(cli, ["changes", "--pytest"], env=env, catch_exceptions=False).output.split()
    assert sorted(machine) == sorted(rows)
    import json

    shown = json.loads(runner.invoke(cli, ["changes", "--json"], env=env, catch_exceptions=False).output)
    assert shown["run"] == ["tests/test_a.py::test_direct"] and shown["guessed"] == ["tests/test_a.py::test_by_name"]
