"""kg's test tracer: a pytest plugin that records which of a project's functions ran, who called them, and in which
test. It runs inside the project's own Python, which need not have kg installed, so it imports nothing but the
standard library and pytest's hooks; kg loads it with `PYTHONPATH=<this folder> pytest -p kg_observe_tracer` and
reads what it writes.

What it records, per process, as JSON lines in `$KG_OBSERVE_TRACE/trace-<pid>.jsonl` (kg checks that the last line
is `end`; anything else is a truncated trace):

    {"t": "start", "version": 1, "python": "3.11.7", "tracer": "settrace", "cwd": ...}
    {"t": "config", "rootdir": ...}
    {"t": "code", "id": 7, "path": "src/pkg/mod.py", "name": "f", "qualname": "C.f", "line": 12}
    {"t": "scope", "prefix": "", "fixture": null, "codes": {"7": 3}}        outside any test: imports, collection
    {"t": "scope", "prefix": "tests/t.py", "fixture": null, "codes": {...}}  a test module's own import-time code
    {"t": "scope", "prefix": "tests", "fixture": "app", "codes": {...}}    a wider-scoped fixture's setup
    {"t": "test", "nodeid": ..., "outcome": "passed", "fixtures": [...], "codes": {"7": 2}, "seconds": 0.01}
    {"t": "edges", "rows": [[caller, callee, via_library, count], ...]}
    {"t": "end", "exitstatus": 0, "tests": 480}

Only Python frames of the project's files (listed in `$KG_OBSERVE_FILES`, one `absolute<TAB>relative` per line) are
kept. A call's caller is the nearest project frame up the stack; when library frames lie between the two, the edge
is marked `via_library` (a test → werkzeug's client → `Flask.__call__`). Each code object is classified once (by
its file) and numbered once, and counts are kept in dicts keyed by small ints, so a call costs a few lookups.

Before 3.12 the hook is `sys.settrace`/`threading.settrace` returning None from the 'call' event: Python calls only,
no line events. From 3.12 on it is `sys.monitoring` PY_START, which is switched off for good on every code object
outside the project (DISABLE), so library code runs at full speed.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest

VERSION = 1
_TRACE_DIR = os.environ.get("KG_OBSERVE_TRACE")
_CWD = os.getcwd()

_files: dict[str, str | None] = {}  # co_filename → path relative to the repository root, or None (not ours)
_project: dict[str, str] = {}  # realpath → relative path, from $KG_OBSERVE_FILES
_ids: dict[int, int] = {}  # id(code) → number in the trace
_keep: list[object] = []  # the numbered code objects, kept alive so their ids are never reused
_edges: dict[tuple[int, int, int], int] = {}  # (caller, callee, via_library) → calls
# Coverage buckets: the session's (everything outside a test: conftest and project-module imports), then the test
# module being collected, the test and the wider-scoped fixture running now. A project module's import counts for the
# whole session because it is imported once, by whichever test file comes first, yet every test file importing it
# would fail if its import failed. What a test module's own body runs (`@click.option(...)` on a module-level
# function, `parametrize` arguments) fails only that file's import, so it counts for that file's tests alone.
_stack: list[dict[int, int]] = [{}]
_collecting: dict[int, int] | None = None  # the bucket of the test module being collected
_collecting_file = ""  # its co_filename
_out = None
_active = False


def _classify(filename: str) -> str | None:
    """The project-relative path of a code object's file, or None for code outside the project."""
    path = filename if os.path.isabs(filename) else os.path.join(_CWD, filename)
    rel = _project.get(os.path.realpath(path))
    _files[filename] = rel
    return rel


def _number(code, rel: str) -> int:
    n = len(_keep) + 1
    _keep.append(code)
    _ids[id(code)] = n
    _write({"t": "code", "id": n, "path": rel, "name": code.co_name,
            "qualname": getattr(code, "co_qualname", code.co_name), "line": code.co_firstlineno})
    return n


def _record(frame, code) -> None:
    """A project function starts in `frame`: count it in the running bucket and as an edge from its caller."""
    callee = _ids.get(id(code))
    if callee is None:
        callee = _number(code, _files[code.co_filename])
    bucket = _stack[-1]
    if bucket is _collecting and _importing_another(frame):
        bucket = _stack[0]
    bucket[callee] = bucket.get(callee, 0) + 1
    back = frame.f_back
    via = 0
    while back is not None:
        bcode = back.f_code
        name = bcode.co_filename
        rel = _files[name] if name in _files else _classify(name)
        if rel is not None:
            caller = _ids.get(id(bcode))
            if caller is None:
                caller = _number(bcode, rel)
            key = (caller, callee, via)
            _edges[key] = _edges.get(key, 0) + 1
            return
        via = 1
        back = back.f_back


def _importing_another(frame) -> bool:
    """While a test module is collected: does `frame` run inside the import of some other module (a project module
    the test module imports first), rather than in the test module's own body or a collection hook?"""
    while frame is not None:
        code = frame.f_code
        if code.co_filename == _collecting_file:
            return False
        if code.co_name == "<module>":
            return True
        frame = frame.f_back
    return False


def _on_call(frame, event, arg):  # sys.settrace: called for 'call' events only, since it returns None
    files = _files
    if files is None or not _active:  # shutting down (globals cleared), or a thread still tracing after the end
        return None
    code = frame.f_code
    name = code.co_filename
    if (files[name] if name in files else _classify(name)) is not None:
        _record(frame, code)
    return None


def _on_start(code, offset):  # sys.monitoring PY_START (3.12+)
    name = code.co_filename
    if (_files[name] if name in _files else _classify(name)) is None:
        return sys.monitoring.DISABLE
    _record(sys._getframe(1), code)
    return None


_TOOL = 4  # sys.monitoring tool id; 0-2 are debugger, coverage, profiler, 5 optimizer


def _start() -> None:
    global _out, _active
    os.makedirs(_TRACE_DIR, exist_ok=True)
    _out = open(os.path.join(_TRACE_DIR, f"trace-{os.getpid()}.jsonl"), "w", encoding="utf-8", buffering=1 << 16)
    listing = os.environ.get("KG_OBSERVE_FILES")
    if listing:
        with open(listing, encoding="utf-8") as f:
            for line in f:
                absolute, _, rel = line.rstrip("\n").partition("\t")
                if rel:
                    _project[os.path.realpath(absolute)] = rel
    monitoring = getattr(sys, "monitoring", None)
    tracer = "sys.monitoring" if monitoring is not None else "settrace"
    _write({"t": "start", "version": VERSION, "python": sys.version.split()[0], "tracer": tracer, "cwd": _CWD,
            "pid": os.getpid(), "files": len(_project)})
    if monitoring is not None:
        tool = _TOOL
        while monitoring.get_tool(tool) is not None and tool > 3:
            tool -= 1
        monitoring.use_tool_id(tool, "kg observe")
        monitoring.register_callback(tool, monitoring.events.PY_START, _on_start)
        monitoring.set_events(tool, monitoring.events.PY_START)
        globals()["_TOOL"] = tool
    else:
        threading.settrace(_on_call)
        sys.settrace(_on_call)
    _active = True


def _stop() -> None:
    global _active
    if not _active:
        return
    _active = False
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        monitoring.set_events(_TOOL, 0)
        monitoring.register_callback(_TOOL, monitoring.events.PY_START, None)
        monitoring.free_tool_id(_TOOL)
    else:
        sys.settrace(None)
        threading.settrace(None)


def _write(record: dict) -> None:
    _out.write(json.dumps(record, separators=(",", ":")) + "\n")


def _codes(bucket: dict[int, int]) -> dict[str, int]:
    return {str(k): v for k, v in bucket.items()}


# ── pytest hooks ─────────────────────────────────────────────────────────────────────────────────────────────────
# Only the outermost pytest session of the process records (a test that runs pytest in-process starts another).

_session = None
_outcomes: dict[str, str] = {}
_ran = 0


def pytest_configure(config) -> None:
    if _active and not hasattr(config, "workerinput"):
        _write({"t": "config", "rootdir": str(config.rootpath)})
    elif _active:  # a pytest-xdist worker: same layout
        _write({"t": "config", "rootdir": str(config.rootpath), "worker": config.workerinput.get("workerid")})


def pytest_sessionstart(session) -> None:
    global _session
    if _session is None:
        _session = session


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if not _active or fixturedef.scope == "function" or request.session is not _session:
        yield
        return
    _stack.append({})
    try:
        yield
    finally:
        bucket = _stack.pop()
        parent = _stack[-1]
        for k, v in bucket.items():  # the test whose setup built it ran this code too
            parent[k] = parent.get(k, 0) + v
        if bucket:
            _write({"t": "scope", "prefix": fixturedef.baseid, "fixture": fixturedef.argname,
                    "scope": fixturedef.scope, "codes": _codes(bucket)})


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A test module's import and collection: its own body's calls count for its tests only (see `_stack`)."""
    global _collecting, _collecting_file
    if not _active or not isinstance(collector, pytest.Module) or collector.session is not _session \
            or _collecting is not None:
        yield
        return
    _collecting, _collecting_file = {}, str(collector.path)
    _stack.append(_collecting)
    try:
        yield
    finally:
        bucket = _stack.pop()
        _collecting, _collecting_file = None, ""
        if bucket:
            _write({"t": "scope", "prefix": collector.nodeid, "fixture": None, "codes": _codes(bucket)})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _active or item.session is not _session:
        yield
        return
    global _ran
    began = time.perf_counter()
    _stack.append({})
    try:
        yield
    finally:
        bucket = _stack.pop()
        _ran += 1
        _write({"t": "test", "nodeid": item.nodeid, "outcome": _outcomes.pop(item.nodeid, "passed"),
                "fixtures": list(getattr(item, "fixturenames", ())), "codes": _codes(bucket),
                "seconds": round(time.perf_counter() - began, 4)})


def pytest_collection_modifyitems(session, config, items) -> None:
    """`kg observe --changed`: keep only the tests kg asked for (node ids or whole files, relative to the
    repository root, one per line in $KG_OBSERVE_SELECT)."""
    listing = os.environ.get("KG_OBSERVE_SELECT")
    if not listing or session is not _session:
        return
    with open(listing, encoding="utf-8") as f:
        wanted = {line.rstrip("\n") for line in f if line.strip()}
    prefix = os.path.relpath(str(config.rootpath), os.environ.get("KG_OBSERVE_ROOT", str(config.rootpath)))
    prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
    keep, drop = [], []
    for item in items:
        nodeid = prefix + item.nodeid
        (keep if nodeid in wanted or nodeid.split("::", 1)[0] in wanted else drop).append(item)
    if drop:
        items[:] = keep
        config.hook.pytest_deselected(items=drop)


def pytest_runtest_logreport(report) -> None:
    if not _active:
        return
    previous = _outcomes.get(report.nodeid, "passed")
    if report.failed:
        outcome = "failed" if report.when == "call" else "error"
    elif report.skipped:
        outcome = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call" and hasattr(report, "wasxfail"):
        outcome = "xpassed"
    else:
        outcome = "passed"
    rank = ("passed", "xpassed", "skipped", "xfailed", "failed", "error")
    _outcomes[report.nodeid] = max(previous, outcome, key=rank.index)


def pytest_sessionfinish(session, exitstatus) -> None:
    if not _active or session is not _session:
        return
    _stop()
    _write({"t": "scope", "prefix": "", "fixture": None, "codes": _codes(_stack[0])})
    rows = [[a, b, v, n] for (a, b, v), n in _edges.items()]
    for i in range(0, len(rows), 5000):
        _write({"t": "edges", "rows": rows[i:i + 5000]})
    _write({"t": "end", "exitstatus": int(exitstatus), "tests": _ran})
    _out.close()  # left open, it was closed at exit with a ResourceWarning printed under the suite's output


if _TRACE_DIR:
    _start()
