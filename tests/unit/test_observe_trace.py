"""`kg observe` without a database: the tracer plugin in a real pytest subprocess, reading its trace files (whole,
truncated, damaged), mapping code objects onto nodes, own-text hashes, and how static and observed evidence
combine into the tests to run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from kg.ingest.observe.mapping import FileNodes, Node
from kg.ingest.observe.runner import PLUGIN, TRACER_DIR
from kg.ingest.observe.trace import Code, TraceError, read_trace

from kg.navigate.evidence import combine, pytest_ids

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "observe" / "proj"


def traced_run(root: Path, python: str = sys.executable) -> Path:
    """Run the fixture project's tests with the tracer, as `kg observe` would; returns the trace folder."""
    files = root / "files.tsv"
    files.write_text("".join(f"{p}\t{p.relative_to(root).as_posix()}\n" for p in root.rglob("*.py")))
    trace = root / "trace"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(TRACER_DIR), "KG_OBSERVE_TRACE": str(trace),
           "KG_OBSERVE_FILES": str(files), "KG_OBSERVE_ROOT": str(root)}
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", PLUGIN, "-p", "no:cacheprovider"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return trace


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("traced") / "proj"
    shutil.copytree(PROJECT, root)
    return root, traced_run(root)


def code(trace_codes: set[Code], qualname: str) -> Code:
    (found,) = [c for c in trace_codes if c.qualname == qualname]
    return found


def test_the_tracer_records_tests_scopes_and_edges_through_libraries(traced: tuple[Path, Path]) -> None:
    root, folder = traced
    trace = read_trace(folder, root)
    assert trace.tracer == ("sys.monitoring" if sys.version_info >= (3, 12) else "settrace")
    tests = {t.nodeid: t for t in trace.tests}
    assert set(tests) == {"tests/test_other.py::test_empty_total", "tests/test_prices.py::test_half_by_name",
                          "tests/test_prices.py::test_total", "tests/test_prices.py::test_snapshot",
                          "tests/test_prices.py::test_half_param[2]", "tests/test_prices.py::test_half_param[4]"}
    assert tests["tests/test_prices.py::test_half_param[4]"].function == "tests/test_prices.py::test_half_param"
    codes = trace.codes()
    half, apply = code(codes, "half"), code(codes, "apply")
    assert tests["tests/test_prices.py::test_half_by_name"].codes[half] == 1  # reached by name, through a dict
    assert half not in tests["tests/test_prices.py::test_total"].codes
    # copy.deepcopy is library code between snapshot and Basket.__deepcopy__: the edge is marked as such
    snapshot, deepcopy = code(codes, "snapshot"), code(codes, "Basket.__deepcopy__")
    assert trace.edges[(snapshot, deepcopy, True)] == 1 and (snapshot, deepcopy, False) not in trace.edges
    assert trace.edges[(apply, half, False)] == 3
    # the decorator factory ran while the tests were imported: the session scope holds it, for every test
    (session,) = [s for s in trace.scopes if s.prefix == "" and s.fixture is None]
    assert code(codes, "register") in session.codes
    assert trace.exit_status == 0 and trace.outcomes() == Counter(passed=6)


def test_a_test_modules_own_import_time_code_goes_to_its_file_scope(tmp_path: Path) -> None:
    """tests/fixtures/observe/collect: test_declared.py's body calls `option(...)` (→ Option → split_opt) while pytest
    imports it; cli/options.py's body applies `@command`. The first is the file's scope, the second the session's."""
    root = tmp_path / "collect"
    shutil.copytree(PROJECT.parent / "collect", root)
    trace = read_trace(traced_run(root), root)
    codes = trace.codes()
    scopes = {s.prefix: s for s in trace.scopes if s.fixture is None}
    assert set(scopes) == {"", "tests/test_declared.py", "tests/test_plain.py", "tests/test_runtime.py"}
    assert {c.path for c in scopes["tests/test_plain.py"].codes} == {"tests/test_plain.py"}  # its body alone
    declared, session = scopes["tests/test_declared.py"].codes, scopes[""].codes
    assert {code(codes, q) for q in ("option", "option.<locals>.decorate", "Option.__init__", "split_opt")} \
        <= set(declared)
    assert code(codes, "command") in session and code(codes, "command") not in declared
    assert code(codes, "split_opt") not in session
    runtime = {t.nodeid: t for t in trace.tests}["tests/test_runtime.py::test_option_built_in_the_test"]
    assert runtime.codes[code(codes, "split_opt")] == 1


def test_a_trace_cut_short_or_damaged_is_refused(traced: tuple[Path, Path], tmp_path: Path) -> None:
    root, folder = traced
    (original,) = folder.glob("trace-*.jsonl")
    lines = original.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / original.name).write_text("".join(lines[:-3]))
    with pytest.raises(TraceError, match=r"is truncated after line \d+ .*run `kg observe` again"):
        read_trace(cut, root)
    (cut / original.name).write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
    with pytest.raises(TraceError, match="truncated or damaged at line 6"):
        read_trace(cut, root)
    (cut / original.name).write_text(json.dumps({"t": "start", "version": 99}) + "\n")
    with pytest.raises(TraceError, match="version 99 trace"):
        read_trace(cut, root)
    (cut / original.name).unlink()
    with pytest.raises(TraceError, match="no trace in"):
        read_trace(cut, root)


def python_312() -> str | None:
    """A Python 3.12 or later that runs (PATH, then pyenv's versions), for the sys.monitoring tracer."""
    candidates = [shutil.which(f"python3.{minor}") for minor in (12, 13, 14)]
    candidates += [str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.1[2-9]*/bin/python3"))]
    for candidate in filter(None, candidates):
        check = subprocess.run([candidate, "-c", "import sys; assert sys.version_info >= (3, 12)"],
                               capture_output=True)
        if check.returncode == 0:
            return candidate
    return None


def test_the_tracer_uses_sys_monitoring_on_python_312(tmp_path: Path) -> None:
    python = python_312()
    if python is None:
        pytest.skip("no Python 3.12+ on this machine to check the sys.monitoring tracer with")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "pytest>=8"], capture_output=True, text=True)
    if pip.returncode != 0:
        pytest.skip(f"cannot install pytest for Python 3.12: {pip.stderr.strip().splitlines()[-1:]}")
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    trace = read_trace(traced_run(root, str(venv / "bin" / "python")), root)
    assert trace.tracer == "sys.monitoring" and trace.python.startswith("3.1")
    codes = trace.codes()
    assert trace.edges[(code(codes, "snapshot"), code(codes, "Basket.__deepcopy__"), True)] == 1
    assert len(trace.tests) == 6


def node(key: str, kind: str, name: str, start: int, end: int) -> Node:
    return Node(f"r:{key}", key, kind, name, "m.py", start, end)


def test_code_objects_map_to_the_symbol_that_starts_there_or_holds_them() -> None:
    module = node("m", "module", "m", 1, 20)
    cls = node("m.C", "class", "C", 3, 12)
    method = node("m.C.f", "method", "f", 5, 9)  # starts at its decorator, like co_firstlineno
    inner = node("m.C.f.g", "function", "g", 7, 8)
    nodes = FileNodes(module, [method, cls, inner, node("m.X", "variable", "X", 14, 14)])
    assert nodes.node_for(Code("m.py", "f", "C.f", 5)) is method
    assert nodes.node_for(Code("m.py", "g", "C.f.<locals>.g", 7)) is inner
    assert nodes.node_for(Code("m.py", "<lambda>", "C.f.<locals>.<lambda>", 6)) is method
    assert nodes.node_for(Code("m.py", "C", "C", 3)) is cls
    assert nodes.node_for(Code("m.py", "<module>", "<module>", 1)) is module
    assert nodes.node_for(Code("m.py", "<genexpr>", "<genexpr>", 15)) is module


def test_another_definition_of_a_name_maps_to_the_names_one_node() -> None:
    """kg has one node per name in a scope, spanning one definition (an overload stub, a property's getter); the
    code of the others maps to it, by qualname (3.11+) or by name inside the definition around it (the tracer's
    qualname is the bare name before 3.11), never to a same-named function of an outer scope."""
    module = node("m", "module", "m", 1, 40)
    run = node("m.run", "function", "run", 2, 3)  # an @overload stub; the implementation is at line 30
    cls = node("m.C", "class", "C", 5, 20)
    prop = node("m.C.run", "method", "run", 6, 8)  # the getter; the setter is at line 10
    made = node("m.f.Made", "class", "Made", 22, 24)  # the class of an `if`'s first branch; the else's is at 26
    size = node("m.f.Made.size", "method", "size", 23, 24)
    f = node("m.f", "function", "f", 21, 28)
    nodes = FileNodes(module, [run, cls, prop, f, made, size])
    assert nodes.node_for(Code("m.py", "run", "run", 30)) is run
    assert nodes.node_for(Code("m.py", "run", "C.run", 10)) is prop
    assert nodes.node_for(Code("m.py", "run", "run", 10)) is prop  # before 3.11: the holder's name, not m.run
    assert nodes.node_for(Code("m.py", "size", "f.<locals>.Made.size", 27)) is size
    assert nodes.node_for(Code("m.py", "Made", "f.<locals>.Made", 26)) is made
    assert nodes.node_for(Code("m.py", "other", "C.other", 12)) is cls


def test_own_text_leaves_out_nested_definitions_blank_lines_and_comments() -> None:
    module = node("m", "module", "m", 1, 10)
    f = node("m.f", "function", "f", 2, 6)
    g = node("m.f.g", "function", "g", 4, 5)
    nodes = FileNodes(module, [f, g])
    before = "import os\ndef f():\n    x = 1\n    def g():\n        return 2\n    return x\n"
    hashes = nodes.own_text_hashes(before)
    inner_edit = nodes.own_text_hashes(before.replace("return 2", "return 3"))
    assert inner_edit[g.key] != hashes[g.key] and inner_edit[f.key] == hashes[f.key]
    assert inner_edit[module.key] == hashes[module.key]
    cosmetic = nodes.own_text_hashes(before.replace("    x = 1\n", "    x = 1   \n").replace("import os", "import os"))
    assert cosmetic == hashes
    comment = "import os\ndef f():\n    x = 1  \n    def g():\n        return 2\n    return x\n# the end\n\n"
    assert nodes.own_text_hashes(comment) == hashes


def static_row(test: str, distance: int = 1) -> dict:
    return {"test": test, "qname": test.replace("::", "."), "distance": distance, "confidence": 1.0, "how": "calls"}


def observed_row(test: str, stale: bool = False, calls: int = 2) -> dict:
    function = test.split("[")[0]
    return {"test": test, "function": function, "outcome": "passed", "calls": calls, "stale": stale, "how": "ran f"}


def state(test: str, outcome: str = "passed", file_stale: bool = False) -> dict:
    return {"test": test, "function": test.split("[")[0], "path": test.split("::")[0], "outcome": outcome,
            "file_stale": file_stale}


def test_combined_evidence_says_where_each_test_came_from() -> None:
    static = [static_row("t.py::test_a"), static_row("t.py::test_b"), static_row("t.py::test_c"),
              static_row("t.py::test_d"), static_row("n.py::test_new"), static_row("t.py::test_nested", 2)]
    observed = [observed_row("t.py::test_a[1]"), observed_row("t.py::test_a[2]"), observed_row("o.py::test_o", True)]
    known = [state("t.py::test_a[1]"), state("t.py::test_a[2]"), state("t.py::test_b"),
             state("t.py::test_c", file_stale=True), state("t.py::test_d", outcome="failed"),
             {"test": None, "function": None, "path": "t.py", "outcome": None, "file_stale": False}]
    chosen = combine(static, observed, known, "combined", observed_runs=1)
    by_test = {r["test"]: r for r in chosen.rows}
    assert by_test["t.py::test_a[1]"]["source"] == "both" and by_test["t.py::test_a[1]"]["distance"] == 1
    assert by_test["o.py::test_o"]["evidence"] == "observed (stale)" and by_test["o.py::test_o"]["stale"]
    assert by_test["t.py::test_c"]["source"] == "static"  # its file changed since it was observed
    assert by_test["t.py::test_d"]["source"] == "static"  # its observed run failed: it may have stopped early
    assert by_test["n.py::test_new"]["source"] == "static"  # never observed
    # observed fresh without running the code, or never collected from an unchanged observed file: left out
    assert "t.py::test_b" not in by_test and "t.py::test_nested" not in by_test
    assert any(n.startswith("2 tests static analysis reaches were left out") for n in chosen.notes)
    assert any(n.startswith("1 tests rest on stale observations") for n in chosen.notes)
    assert [r["source"] for r in chosen.rows][:2] == ["both", "both"]

    anything = combine(static, observed, known, "any", observed_runs=1)
    assert {"t.py::test_b", "t.py::test_nested"} <= {r["test"] for r in anything.rows}
    only_static = combine(static, observed, known, "static")
    assert {r["source"] for r in only_static.rows} == {"static"} and len(only_static.rows) == len(static)
    only_observed = combine(static, observed, known, "observed", observed_runs=1)
    assert {r["source"] for r in only_observed.rows} == {"observed"} and len(only_observed.rows) == 3
    nothing_observed = combine(static, [], [], "combined", observed_runs=0)
    assert len(nothing_observed.rows) == len(static) and "no observed data" in nothing_observed.notes[0]


def test_pytest_ids_drop_parameters_when_the_whole_function_is_selected() -> None:
    rows = [{"test": "t.py::test_a[1]"}, {"test": "t.py::test_a"}, {"test": "t.py::test_b[x-y]"},
            {"test": "t.py::test_b[x-y]"}, {"test": "t.py::test_c"}]
    assert pytest_ids(rows) == ["t.py::test_a", "t.py::test_b[x-y]", "t.py::test_c"]
