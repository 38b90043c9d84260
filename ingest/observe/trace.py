"""Reading what the tracer wrote: one JSON-lines file per traced process, checked whole before anything is used.

A trace whose last line is not `end` was cut short (the process was killed, the disk filled): kg refuses it rather
than store half a run as if it were all of it. Code numbers are per process; the result is keyed by what a code
object is (file, name, qualified name, first line), so several processes (pytest-xdist workers) merge cleanly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputError

TRACE_VERSION = 1
_PARAMS = re.compile(r"\[.*\]$")


class TraceError(InputError):
    """A trace file kg cannot use (truncated, not a trace, another version)."""


@dataclass(frozen=True, slots=True)
class Code:
    """A code object the tracer saw run: function, method, class body, module body, lambda or comprehension."""

    path: str  # relative to the repository root
    name: str
    qualname: str
    line: int


@dataclass
class TestRun:
    nodeid: str  # pytest node id, relative to the repository root
    outcome: str  # passed, failed, error, skipped, xfailed, xpassed
    fixtures: list[str]
    codes: Counter[Code]
    seconds: float

    @property
    def path(self) -> str:
        return self.nodeid.split("::", 1)[0]

    @property
    def function(self) -> str:
        """The node id without parameters: `tests/t.py::test_x[1]` → `tests/t.py::test_x`."""
        return _PARAMS.sub("", self.nodeid)


@dataclass
class Scope:
    """Code that ran outside any one test: imports and collection (`prefix` "", the whole session), or the setup of
    the wider-scoped `fixture` defined at `prefix` (a file or folder). It counts for every test under `prefix`
    (that uses `fixture`)."""

    prefix: str
    fixture: str | None
    codes: Counter[Code]


@dataclass
class Trace:
    python: str = ""
    tracer: str = ""
    processes: int = 0
    exit_status: int | None = None
    tests: list[TestRun] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)
    edges: Counter[tuple[Code, Code, bool]] = field(default_factory=Counter)  # (caller, callee, via library)

    def codes(self) -> set[Code]:
        seen: set[Code] = set()
        for t in self.tests:
            seen.update(t.codes)
        for s in self.scopes:
            seen.update(s.codes)
        for a, b, _ in self.edges:
            seen.update((a, b))
        return seen

    def outcomes(self) -> Counter[str]:
        return Counter(t.outcome for t in self.tests)


def read_trace(folder: Path, repo_root: Path) -> Trace:
    """Every `trace-*.jsonl` in `folder` merged into one Trace; node ids made relative to `repo_root`."""
    files = sorted(folder.glob("trace-*.jsonl")) if folder.is_dir() else []
    if not files:
        raise TraceError(f"no trace in {folder}: the command ran no pytest with kg's tracer (is it a pytest run?)")
    trace = Trace()
    by_test: dict[str, TestRun] = {}
    for file in files:
        if not _is_nested_run(file, repo_root):
            _read_file(file, repo_root.resolve(), trace, by_test)
    trace.tests = list(by_test.values())
    return trace


def _is_nested_run(file: Path, repo_root: Path) -> bool:
    """A pytest the tests themselves started in a subprocess (pytester) traces too, with its root elsewhere."""
    with file.open(encoding="utf-8") as f:
        for line in f:
            record = _parse(line, file, 0)
            if record.get("t") == "config":
                return not _inside(Path(record["rootdir"]), repo_root.resolve())
    return False


def _read_file(file: Path, root: Path, trace: Trace, by_test: dict[str, TestRun]) -> None:
    codes: dict[int, Code] = {}
    prefix = ""
    last: dict = {}
    with file.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            record = last = _parse(line, file, number)
            kind = record.get("t")
            if number == 1:
                if kind != "start":
                    raise TraceError(f"{file} is not a kg trace (it does not open with a start record)")
                if record.get("version") != TRACE_VERSION:
                    raise TraceError(f"{file} is a version {record.get('version')} trace; this kg reads version "
                                     f"{TRACE_VERSION}: run `kg observe` again")
                trace.python, trace.tracer = record.get("python", ""), record.get("tracer", "")
                trace.processes += 1
            elif kind == "config":
                rootdir = Path(record["rootdir"]).resolve()
                rel = rootdir.relative_to(root).as_posix() if _inside(rootdir, root) else ""
                prefix = "" if rel in ("", ".") else rel
            elif kind == "code":
                codes[record["id"]] = Code(record["path"], record["name"], record["qualname"], record["line"])
            elif kind == "test":
                nodeid = _join(prefix, record["nodeid"])
                by_test[nodeid] = TestRun(nodeid, record["outcome"], record.get("fixtures", []),
                                          _counts(record["codes"], codes, file), record.get("seconds", 0.0))
            elif kind == "scope":
                trace.scopes.append(Scope(_join(prefix, record["prefix"]) if record["prefix"] else prefix,
                                          record.get("fixture"), _counts(record["codes"], codes, file)))
            elif kind == "edges":
                for caller, callee, via, count in record["rows"]:
                    trace.edges[(_code(codes, caller, file), _code(codes, callee, file), bool(via))] += count
            elif kind == "end":
                status = record.get("exitstatus")
                trace.exit_status = status if trace.exit_status in (None, 0) else trace.exit_status
    if last.get("t") != "end":
        raise TraceError(f"{file} is truncated after line {number if last else 0} (the traced run died before it "
                         "finished): run `kg observe` again")


def _parse(line: str, file: Path, number: int) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        raise TraceError(f"{file} is truncated or damaged at line {number}: run `kg observe` again") from None
    if not isinstance(record, dict):
        raise TraceError(f"{file} line {number} is not a trace record: run `kg observe` again")
    return record


def _counts(raw: dict[str, int], codes: dict[int, Code], file: Path) -> Counter[Code]:
    return Counter({_code(codes, int(k), file): v for k, v in raw.items()})


def _code(codes: dict[int, Code], number: int, file: Path) -> Code:
    try:
        return codes[number]
    except KeyError:
        raise TraceError(f"{file} refers to code #{number} it never described: the trace is damaged") from None


def _join(prefix: str, nodeid: str) -> str:
    return f"{prefix}/{nodeid}" if prefix else nodeid


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
