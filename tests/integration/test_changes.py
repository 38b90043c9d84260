"""`kg changes` on a real project with its own test suite: inject a fault, ask kg which tests to run, run them all.

The project is click 8.1.7 from its sdist (611 tests, offline, a few seconds; run with this venv's pytest and the
copy's own `src/` first on the path). The check that matters: every test the fault makes fail is one kg selected.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.navigate.changes import changes, parse_diff
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
