"""`kg observe` as a library: check the graph matches the tree, run the suite traced, store what ran.

What a run stores (see queries/observe/):
- `(:ObservedTest {nodeid, outcome, fixtures, hash})-[:COVERS {count, hash, text}]->(:Symbol|:Module)` for each
  test that ran: the project code it entered during setup, call and teardown;
- `(:TestScope {prefix, fixture})-[:COVERS]->(...)` for code run outside any test (imports, collection: prefix "")
  or while setting up a wider-scoped fixture: it counts for every test under `prefix` (using `fixture`), without
  copying it to each;
- `[:CALLS {resolution: 'observed', via: 'direct'|'library', count}]` between project nodes, apart from the static
  edges (ingest never touches them; queries pick static, observed or both);
- `(:ObservedRun)` with what ran and how the tests came out.

Every COVERS and observed CALLS records the content hash of the file it describes (`hash`) and a hash of the
node's own text (`text`): when ingest later stores a different hash for that file the evidence is stale, and
`--changed` tells which nodes' own text changed, runs again only the tests that ran those nodes (or whose test file
changed), and marks the rest fresh again.

Three modes: `full` (the default command, or a given one with `replace`: the whole suite; what an earlier run left
is replaced), `merge` (a command given after `--`, which may run any part of the suite: the tests it ran are
replaced, the rest kept) and `changed`.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kg.ingest.observe import runner
from kg.ingest.observe.mapping import Node, file_nodes, own_text_hashes
from kg.ingest.observe.trace import Code, Trace, read_trace

from kg.errors import InputError, KgError
from kg.source_files import content_hash
from kg.store import Store


class SuiteError(KgError):
    """The test command could not run the suite (no tests, bad arguments, it crashed before tracing)."""


@dataclass
class ObserveReport:
    repo: str
    root: str
    mode: str  # full | merge | changed
    command: str = ""
    origin: str = ""
    exit_code: int | None = None
    tests: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    selected: int | None = None  # --changed: tests asked for
    changed_nodes: list[str] = field(default_factory=list)  # --changed: qnames whose own text changed
    covers: int = 0
    scopes: int = 0
    edges: dict[str, int] = field(default_factory=dict)  # direct / library
    unmapped_files: int = 0  # files code ran from that the graph does not know (generated, deleted)
    refreshed: int = 0
    python: str = ""
    tracer: str = ""
    suite_seconds: float = 0.0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.outcomes.get("failed", 0) + self.outcomes.get("error", 0)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "failed": self.failed}


def find_repo(store: Store, path: Path | None, repo: str | None) -> tuple[str, Path]:
    """The ingested repository to observe: by name, else the one whose root holds `path` (default: cwd)."""
    repos = {r["repo"]: Path(r["root"]) for r in store.read("repos") if r["root"]}
    if repo:
        if repo not in repos:
            raise InputError(f"no repository named {repo!r} in the graph: ingest it first (`kg ingest PATH "
                             f"--repo {repo}`)")
        return repo, (path.resolve() if path else repos[repo])
    here = (path or Path.cwd()).resolve()
    holding = sorted(((n, r) for n, r in repos.items() if here == r or r in here.parents),
                     key=lambda nr: len(nr[1].parts))
    if not holding:
        raise InputError(f"{here} is not in an ingested repository: run `kg ingest {path or '.'}` first")
    return holding[-1]


def observe(store: Store, path: Path | None = None, repo: str | None = None, command: list[str] | None = None,
            changed: bool = False, replace: bool = False, work_dir: Path | None = None,
            echo: Callable[[str], None] | None = None) -> ObserveReport:
    """Run the suite (or, with `changed`, the tests a change can affect) traced, and store what ran. A `command`
    is taken to run part of the suite (merge) unless `replace` says it runs all of it."""
    began = time.perf_counter()
    store.apply_schema()
    name, root = find_repo(store, path, repo)
    files = _check_tree(store, name, root)
    if changed and replace:
        raise InputError("--changed and --replace do not go together: --changed runs part of the suite")
    mode = "changed" if changed else ("merge" if command and not replace else "full")
    report = ObserveReport(name, str(root), mode)
    selection: list[str] | None = None
    plan: _ChangePlan | None = None
    if changed:
        plan = _plan_changed(store, name, root)
        report.changed_nodes = sorted(plan.changed_qnames)
        report.refreshed = len(plan.refresh)
        selection = sorted(plan.tests | plan.files)
        report.selected = len(plan.tests | plan.files)
        if not selection:
            store.write("observe/refresh", plan.refresh)
            report.notes.append("nothing the observed tests ran has changed since they were observed")
            report.seconds = round(time.perf_counter() - began, 3)
            return report
    made = _missing(work_dir)
    work = Path(tempfile.mkdtemp(prefix=f"observe-{name}-", dir=_ensure(work_dir)))
    try:
        listing = work / "files.tsv"
        listing.write_text("".join(f"{root / p}\t{p}\n" for p in files), encoding="utf-8")
        select_file = None
        if selection is not None:
            select_file = work / "select.txt"
            select_file.write_text("".join(f"{s}\n" for s in selection), encoding="utf-8")
        paths = sorted({s.split("::", 1)[0] for s in selection}) if selection is not None else None
        cmd = runner.given_command(command) if command else runner.default_command(root, paths)
        report.command, report.origin = cmd.text(), cmd.origin
        finished = runner.run(cmd, root, work / "trace", listing, select_file, echo)
        report.exit_code, report.suite_seconds = finished.exit_code, finished.seconds
        trace = _read(work / "trace", root, cmd, finished)
        _store(store, name, root, trace, report, plan, files)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        for folder in made:  # the folders made for the work dir (the project's `.kg/observe`) go when empty
            with contextlib.suppress(OSError):
                folder.rmdir()
    report.seconds = round(time.perf_counter() - began, 3)
    return report


def _missing(folder: Path | None) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, innermost first."""
    missing = []
    while folder is not None and not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


def _ensure(folder: Path | None) -> str | None:
    if folder is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


def _check_tree(store: Store, repo: str, root: Path) -> dict[str, str]:
    """Python files of the repository (path → graph hash); refuses when the tree differs from the graph, since
    observed code is mapped by line and must describe what the graph holds."""
    if not root.is_dir():
        raise InputError(f"{root}, the root of {repo!r} in the graph, is not a folder any more")
    files = {r["path"]: r["hash"] for r in store.read("observe/python_files", repo=repo)}
    if not files:
        raise InputError(f"the graph holds no Python module of {repo!r}: kg observe traces Python test suites")
    differ = []
    for path, known in files.items():
        try:
            if content_hash((root / path).read_bytes()) != known:
                differ.append(path)
        except OSError:
            differ.append(path)
    if differ:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        files_changed = f"{len(differ)} file{'s' if len(differ) > 1 else ''} changed"
        raise InputError(f"{files_changed} since the last ingest ({shown}): run `kg ingest {root}` "
                         "first, so what runs maps onto the code the graph holds")
    return files


def _read(folder: Path, root: Path, cmd: runner.Command, finished: runner.Finished) -> Trace:
    code = finished.exit_code
    last = next((line.strip() for line in reversed(finished.tail) if line.strip()), "")
    if code == runner.NO_TESTS:
        raise SuiteError(f"no tests found: `{cmd.text()}` collected nothing in {root}")
    if code == runner.USAGE_ERROR:
        raise SuiteError(f"pytest stopped before running any test (its arguments, or a conftest that does not "
                         f"import) in `{cmd.text()}`: {last}")
    has_trace = folder.is_dir() and any(folder.glob("trace-*.jsonl"))
    if not has_trace:
        if code != 0:
            raise SuiteError(f"`{cmd.text()}` failed (exit {code}) before any test ran under kg's tracer: {last}")
        raise SuiteError(f"`{cmd.text()}` ran no pytest with kg's tracer: kg observe records pytest suites")
    trace = read_trace(folder, root)
    if not trace.tests:
        raise SuiteError(f"no test ran: `{cmd.text()}` exited {code}" + (f" ({last})" if last else ""))
    return trace


# ── --changed ──────────────────────────────────────────────────────────────────────────────────────────────────


@dataclass
class _ChangePlan:
    changed_keys: set[str]
    changed_qnames: set[str]
    refresh: list[dict[str, str]]  # stale nodes whose own text did not change: {key, text, hash}
    tests: set[str]  # node ids to run again
    files: set[str]  # test files to run again whole (they changed)
    gone: list[str]  # ObservedTest keys whose file is gone


def _plan_changed(store: Store, repo: str, root: Path) -> _ChangePlan:
    stale = store.read("observe/stale_targets", repo=repo)
    paths = sorted({r["path"] for r in stale if r["path"]})
    rows = store.read("observe/nodes_in_files", repo=repo, paths=paths)
    nodes = file_nodes(rows)
    current = own_text_hashes(nodes, root)
    module_hash = {r["path"]: r["hash"] for r in rows if r["kind"] == "module"}
    qnames = {n.key: n.qname for f in nodes.values() for n in (f.module, *f.definitions)}
    changed: set[str] = set()
    refresh: dict[tuple[str, str], dict[str, str]] = {}
    for r in stale:
        if r["key"] in current and current[r["key"]] == r["text"] and r["path"] in module_hash:
            refresh[(r["key"], r["text"])] = {"key": r["key"], "text": r["text"], "hash": module_hash[r["path"]]}
        else:
            changed.add(r["key"])
    tests = {r["test"] for r in store.read("observe/tests_covering", repo=repo, keys=sorted(changed))} if changed \
        else set()
    moved = store.read("observe/tests_changed_files", repo=repo)
    files = {r["path"] for r in moved if r["exists"]}
    gone = [r["key"] for r in moved if not r["exists"]]
    tests = {t for t in tests if t.split("::", 1)[0] not in files}
    return _ChangePlan(changed, {qnames.get(k, k.split(":", 1)[-1]) for k in changed}, list(refresh.values()),
                       tests, files, gone)


# ── writing ────────────────────────────────────────────────────────────────────────────────────────────────────


def _store(store: Store, repo: str, root: Path, trace: Trace, report: ObserveReport, plan: _ChangePlan | None,
           files: dict[str, str]) -> None:
    run_id = f"{repo}:{datetime.now().strftime('%Y%m%dT%H%M%S.%f')}"
    codes = trace.codes()
    paths = sorted({c.path for c in codes} | {t.path for t in trace.tests})
    nodes = file_nodes(store.read("observe/nodes_in_files", repo=repo, paths=paths))
    texts = own_text_hashes(nodes, root)
    path_of = {n.key: n.path for f in nodes.values() for n in (f.module, *f.definitions)}
    node_of: dict[Code, Node] = {}
    for c in codes:
        if c.path in nodes:
            node_of[c] = nodes[c.path].node_for(c)
    report.unmapped_files = len({c.path for c in codes} - set(nodes))

    def covers(holder: str, counts: Counter[Code]) -> dict[str, Any]:
        by_node: Counter[Node] = Counter()
        for c, n in counts.items():
            if c in node_of:
                by_node[node_of[c]] += n
        targets = [(node, {"key": node.key, "count": n, "hash": files.get(node.path, ""),
                           "text": texts.get(node.key, "")}) for node, n in by_node.items()]
        return {"holder": holder, "symbols": [t for node, t in targets if node.kind != "module"],
                "modules": [t for node, t in targets if node.kind == "module"]}

    test_rows, test_covers, scope_covers = [], [], []
    for t in trace.tests:
        key = f"{repo}:{t.nodeid}"
        test_rows.append({"key": key, "nodeid": t.nodeid, "path": t.path, "function": t.function,
                          "outcome": t.outcome, "fixtures": t.fixtures, "seconds": t.seconds,
                          "hash": files.get(t.path)})
        test_covers.append(covers(key, t.codes))
    merged_scopes: dict[str, tuple[str, str | None, Counter[Code]]] = {}
    for s in trace.scopes:
        key = f"{repo}:scope:{s.prefix}|{s.fixture or ''}"
        merged_scopes.setdefault(key, (s.prefix, s.fixture, Counter()))[2].update(s.codes)
    scope_rows = [{"key": k, "prefix": p, "fixture": f} for k, (p, f, _) in merged_scopes.items()]
    for k, (_, _, counts) in merged_scopes.items():
        scope_covers.append(covers(k, counts))

    edges: Counter[tuple[str, str, str]] = Counter()
    for (a, b, via), n in trace.edges.items():
        if a in node_of and b in node_of and node_of[a].key != node_of[b].key:
            edges[(node_of[a].key, node_of[b].key, "library" if via else "direct")] += n
    call_rows = [{"source": a, "target": b, "via": via, "count": n,
                  "source_hash": files.get(path_of[a], ""), "target_hash": files.get(path_of[b], ""),
                  "source_text": texts.get(a, ""), "target_text": texts.get(b, "")}
                 for (a, b, via), n in edges.items()]

    outcomes = trace.outcomes()
    report.tests, report.outcomes = len(trace.tests), dict(outcomes)
    report.covers = sum(len(r["symbols"]) + len(r["modules"]) for r in test_covers + scope_covers)
    report.scopes = len(scope_rows)
    report.edges = dict(Counter(r["via"] for r in call_rows))
    report.python, report.tracer = trace.python, trace.tracer
    store.write("observe/run_put", run={
        "id": run_id, "command": report.command, "python": trace.python, "tracer": trace.tracer,
        "mode": report.mode, "exit_status": report.exit_code, "tests": len(trace.tests),
        "passed": outcomes.get("passed", 0), "failed": outcomes.get("failed", 0),
        "errors": outcomes.get("error", 0), "skipped": outcomes.get("skipped", 0) + outcomes.get("xfailed", 0),
        "seconds": report.suite_seconds}, repo=repo)
    if plan is not None:  # what changed is observed again below; evidence about it from before goes first
        store.write("observe/calls_clear_touching", [{"key": k} for k in sorted(plan.changed_keys)])
        ran = {t.nodeid for t in trace.tests}
        asked = {f"{repo}:{t}" for t in plan.tests if t not in ran}
        in_files = [r["key"] for r in store.read("observe/tests_in_files", repo=repo, paths=sorted(plan.files))
                    if r["test"] not in ran]
        store.write("observe/tests_delete", [{"key": k} for k in sorted(asked | set(in_files) | set(plan.gone))])
    store.write("observe/tests_put", test_rows, repo=repo, run=run_id)
    store.write("observe/scopes_put", scope_rows, repo=repo, run=run_id)
    size = lambda r: len(r["symbols"]) + len(r["modules"])  # noqa: E731
    for chunk in _chunks(test_covers, size):
        store.write("observe/covers_put", chunk, replace=True)
    for chunk in _chunks(scope_covers, size):  # a partial run saw only part of the imports: keep the rest
        store.write("observe/covers_put", chunk, replace=report.mode == "full")
    store.write("observe/calls_put", call_rows, run=run_id)
    if plan is not None:
        store.write("observe/refresh", plan.refresh)
    if report.mode == "full":
        store.write("observe/prune", repo=repo, run=run_id)
    if report.failed:
        report.notes.append(f"{report.failed} of {report.tests} tests failed; what they ran is stored all the same")
    if report.unmapped_files:
        report.notes.append(f"code ran from {report.unmapped_files} project files the graph does not hold")



def _chunks(rows: list[dict[str, Any]], size: Callable[[dict[str, Any]], int], budget: int = 5000) -> list[list]:
    """Rows grouped so that each write carries about `budget` nested items (one transaction each)."""
    chunks: list[list[dict[str, Any]]] = [[]]
    used = 0
    for row in rows:
        if chunks[-1] and used + size(row) > budget:
            chunks.append([])
            used = 0
        chunks[-1].append(row)
        used += size(row)
    return [c for c in chunks if c]
