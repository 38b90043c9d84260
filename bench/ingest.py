"""Ingestion benchmark: kg on pinned PyPI sdists (flask, requests, django), against GitNexus on the same trees.

    .venv/bin/python -m bench.ingest [--corpus flask,requests,django] [--updates 30] [--no-gitnexus] [--json]
    .venv/bin/python -m bench.ingest --corpus django --pairs 3      # only kg vs GitNexus, interleaved same-run pairs

For each corpus it prints code files, lines, the graph's nodes and edges, parse-only time, a clean ingest's wall
time and peak RSS (each measured in a fresh child process so nothing leaks across corpora), the Neo4j JVM's RSS
before and after, and GitNexus' wall time and peak RSS on a copy of the same tree. On django (see --update-corpus)
it also keeps one Ingestor alive, as `kg ingest --watch` does, and times one-file updates: a new function appended
to a random file, and a literal changed inside an existing function. Every write query is timed by name.

It is a benchmark that prints, not a test: it asserts nothing, and it never edits the cached corpora (it works on
copies in a temporary folder). Graph repos are named `bench-<corpus>` and forgotten at the end. See bench/README.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
CORPORA = {"flask": "3.0.3", "requests": "2.32.3", "django": "5.1.4"}
REPO_PREFIX = "bench-"
PAGE = os.sysconf("SC_PAGE_SIZE")


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ── statistics ───────────────────────────────────────────────────────────────────────────────────────────────────


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# ── what the pipeline measured (IngestReport.phases and .writes) ────────────────────────────────────────────────────


def phase_seconds(phases: dict[str, float], total: float) -> dict[str, float]:
    """Seconds per phase of one run as the pipeline measured them, with `rest` = what no phase covers."""
    out = {name: round(seconds, 4) for name, seconds in phases.items()}
    out["rest"] = round(total - sum(out.values()), 4)
    return out


def bench_settings() -> Any:
    """The graph `kg ingest` would use: KG_BOLT_PORT, KG_HTTP_PORT and KG_DATA_DIR, or NEO4J_URI."""
    from kg import settings

    return settings.load()


# ── graph figures ─────────────────────────────────────────────────────────────────────────────────────────────────

_OWNED = ("Module", "Symbol", "Document", "Chunk")


def graph_counts(store: Any, repo: str) -> dict[str, Any]:
    """Nodes and relationships of one repo: its own nodes, its Repo node, and the External nodes it points at."""
    nodes: dict[str, int] = {}
    edges: dict[str, int] = {}
    externals = 0
    for label in _OWNED:
        rows = store.read_text(f"MATCH (n:{label} {{repo: $repo}}) RETURN count(n) AS n", repo=repo)
        nodes[label] = rows[0]["n"]
        for row in store.read_text(f"MATCH (:{label} {{repo: $repo}})-[r]->() RETURN type(r) AS t, count(r) AS n",
                                   repo=repo):
            edges[row["t"]] = edges.get(row["t"], 0) + row["n"]
    nodes["Repo"] = store.read_text("MATCH (r:Repo {name: $repo}) RETURN count(r) AS n", repo=repo)[0]["n"]
    for row in store.read_text("MATCH (:Repo {name: $repo})-[r]->() RETURN type(r) AS t, count(r) AS n", repo=repo):
        edges[row["t"]] = edges.get(row["t"], 0) + row["n"]
    externals = store.read_text(
        "CALL () { MATCH (:Module {repo: $repo})-->(e:External) RETURN e "
        "UNION MATCH (:Symbol {repo: $repo})-->(e:External) RETURN e } RETURN count(e) AS n", repo=repo)[0]["n"]
    nodes["External"] = externals
    kinds = {row["l"]: row["n"] for row in store.read_text(
        "MATCH (s:Symbol {repo: $repo}) UNWIND labels(s) AS l WITH l WHERE l <> 'Symbol' "
        "RETURN l, count(*) AS n", repo=repo)}
    loc = store.read_text("MATCH (m:Module {repo: $repo}) RETURN coalesce(sum(m.loc), 0) AS loc", repo=repo)[0]["loc"]
    return {"nodes": sum(nodes.values()), "edges": sum(edges.values()), "nodes_by_label": nodes,
            "edges_by_type": dict(sorted(edges.items())), "symbols_by_kind": kinds, "loc": loc}


# ── edits for the incremental updates ─────────────────────────────────────────────────────────────────────────────


def append_function(path: Path, n: int) -> None:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data += b"\n"
    path.write_bytes(data + f"\n\ndef _kg_bench_probe_{n}(value):\n    return value + {n}\n".encode())


def _literals_in_function_bodies(tree: ast.AST) -> list[ast.Constant]:
    """Single-line int/str literals inside function bodies: not docstrings, f-string parts, defaults, decorators."""
    found: list[ast.Constant] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        if isinstance(node, ast.Constant) and node.lineno == node.end_lineno:
            value = node.value
            if (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str):
                found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            body = fn.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring
            for statement in body:
                if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    visit(statement)
    return found


def change_literal(path: Path, rng: random.Random) -> str | None:
    """Change one literal inside an existing function (same line count); returns what changed, None if no literal."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
        tree = ast.parse(data)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return None
    candidates = _literals_in_function_bodies(tree)
    rng.shuffle(candidates)
    lines = data.splitlines(keepends=True)
    if len(lines) != len(text.splitlines(keepends=True)):  # exotic line breaks: ast's and bytes' lines differ
        return None
    for node in candidates:
        line = lines[node.lineno - 1]
        old = line[node.col_offset:node.end_col_offset]
        try:
            if ast.literal_eval(old.decode("utf-8")) != node.value:
                continue
        except (ValueError, SyntaxError, UnicodeDecodeError):
            continue
        new = repr(node.value + 1) if isinstance(node.value, int) else repr(node.value + "~")
        lines[node.lineno - 1] = line[:node.col_offset] + new.encode() + line[node.end_col_offset:]
        path.write_bytes(b"".join(lines))
        return f"line {node.lineno}: {old.decode()[:40]} -> {new[:40]}"
    return None


# ── child: parse only ─────────────────────────────────────────────────────────────────────────────────────────────


def child_parse(root: Path) -> dict[str, Any]:
    from kg.ingest.languages import by_name, language_for
    from kg.ingest.walk import walk

    began = time.perf_counter()
    tree = walk(root)
    walk_s = time.perf_counter() - began
    code = [f for f in tree.files if f.kind == "code"]
    began = time.perf_counter()
    contents = {f.path: f.abs_path.read_bytes() for f in code}
    read_s = time.perf_counter() - began
    by_language: dict[str, list[str]] = {}
    for f in code:
        by_language.setdefault(language_for(f.path).name, []).append(f.path)
    names = {lang: by_name(lang).module_names(paths) for lang, paths in by_language.items()}
    loc = symbols = errors = 0
    began = time.perf_counter()
    for f in code:
        lang = language_for(f.path)
        parsed = lang.parse(f.path, names[lang.name][f.path], contents[f.path])
        loc += parsed.loc
        symbols += len(parsed.symbols)
        errors += parsed.syntax_errors > 0
    parse_s = time.perf_counter() - began
    return {"files": len(code), "documents": len(tree.files) - len(code), "loc": loc, "symbols": symbols,
            "files_with_syntax_errors": errors, "walk_s": round(walk_s, 3), "read_s": round(read_s, 3),
            "parse_s": round(parse_s, 3), "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


# ── child: clean ingest, re-run, incremental updates ──────────────────────────────────────────────────────────────


def _run_summary(report: Any, seconds: float) -> dict[str, Any]:
    return {"seconds": round(seconds, 4), "files": report.files, "documents": report.documents,
            "written": report.written, "reresolved": report.reresolved, "deleted": report.deleted,
            "unchanged": report.unchanged, "symbols": report.symbols, "edges_written": report.edges,
            "parse_seconds": report.parse_seconds, "phases": phase_seconds(report.phases, seconds),
            "queries": report.writes}


def run_touched(ingestor: Any, touched: list[Path]) -> Any:
    """ingestor.run() as `kg ingest --watch` calls it: with the paths the watcher saw change, when it takes them."""
    try:
        return ingestor.run(touched=touched)
    except TypeError as e:
        if "touched" not in str(e):
            raise
        return ingestor.run()


def _updates(store: Any, ingestor: Any, root: Path, count: int, seed: int, edit: str,
             budget: float) -> list[dict[str, Any]]:
    """`count` edits of one kind, each followed by `ingestor.run()`; stops early once `budget` seconds are spent."""
    rng = random.Random(f"{seed}-{edit}")
    files = sorted(p for p in ingestor.state.parsed if p.endswith(".py"))
    runs: list[dict[str, Any]] = []
    series_began = time.perf_counter()
    for i in range(count):
        if time.perf_counter() - series_began > budget:
            log(f"  {edit}: stopping after {i} updates, the {budget:.0f} s budget is spent")
            break
        for _attempt in range(200):
            path = rng.choice(files)
            if edit == "append":
                append_function(root / path, 10_000 + i)
                what = "appended a function"
                break
            what = change_literal(root / path, rng)
            if what:
                break
        else:
            raise RuntimeError("found no function with a literal to change")
        began = time.perf_counter()
        error = None
        try:
            report = run_touched(ingestor, [root / path])
        except Exception as e:  # a failed write (e.g. Neo4j's transaction memory limit): record it, go on
            error = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
            report = None
        seconds = time.perf_counter() - began
        if report is None:
            run = {"seconds": round(seconds, 4), "error": error, "written": 0, "reresolved": None,
                   "phases": {}, "queries": {}}
            log(f"  {edit} #{i + 1}: {path}: FAILED after {seconds * 1000:.0f} ms: {error}")
        else:
            run = _run_summary(report, seconds)
            log(f"  {edit} #{i + 1}: {path}: {seconds * 1000:.0f} ms, written {report.written}, "
                f"re-resolved {report.reresolved}")
        run.update(path=path, edit=what)
        runs.append(run)
    return runs


def child_ingest(root: Path, repo: str, cache_dir: Path, updates: int, seed: int, budget: float,
                 result: dict[str, Any]) -> dict[str, Any]:
    """Fills `result` as it goes, so the caller can write what was measured even when a step raises."""
    from kg.ingest.pipeline import Ingestor
    from kg.ingest.writer import GraphWriter

    from kg.store import Store

    result["repo"] = repo
    with Store.connect(bench_settings()) as store:
        store.apply_schema()
        began = time.perf_counter()
        GraphWriter(store, repo).forget_repo()
        result["forget_before_s"] = round(time.perf_counter() - began, 3)
        shutil.rmtree(cache_dir, ignore_errors=True)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

        log(f"{repo}: clean ingest of {root}")
        began = time.perf_counter()
        ingestor = Ingestor(store, root, repo=repo, cache_dir=cache_dir)
        report = ingestor.run()
        seconds = time.perf_counter() - began
        result["clean"] = _run_summary(report, seconds)
        result["clean"]["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result["clean"]["maxrss_before_kb"] = rss_before
        result["clean"]["syntax_error_files"] = len(report.syntax_errors)
        result["clean"]["skipped"] = len(report.skipped)
        log(f"{repo}: clean ingest {seconds:.1f} s; counting the graph")
        result["graph"] = graph_counts(store, repo)

        began = time.perf_counter()
        rerun = Ingestor(store, root, repo=repo, cache_dir=cache_dir).run()
        result["rerun"] = _run_summary(rerun, time.perf_counter() - began)

        if updates:
            originals = {p: (root / p).read_bytes() for p in ingestor.state.parsed}
            result["updates"] = {}
            for edit in ("append", "literal"):
                log(f"{repo}: {updates} one-file updates ({edit})")
                result["updates"][edit] = _updates(store, ingestor, root, updates, seed, edit, budget)
            touched = [p for p, data in originals.items() if (root / p).read_bytes() != data]
            for p in touched:
                (root / p).write_bytes(originals[p])
            for key, make in (("restore", lambda: ingestor),
                              ("rerun_after_updates", lambda: Ingestor(store, root, repo=repo, cache_dir=cache_dir))):
                began = time.perf_counter()
                try:
                    result[key] = _run_summary(make().run(), time.perf_counter() - began)
                except Exception as e:  # recorded, and the figures so far are still written
                    result[key] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}",
                                   "seconds": round(time.perf_counter() - began, 3), "written": 0, "reresolved": 0}
                    log(f"{repo}: {key} FAILED: {result[key]['error']}")
            result["restore"]["files_restored"] = len(touched)
            after = graph_counts(store, repo)
            result["graph_after_restore"] = after
            result["graph_after_restore_matches"] = (
                after["nodes_by_label"] == result["graph"]["nodes_by_label"]
                and after["edges_by_type"] == result["graph"]["edges_by_type"])
        result["maxrss_end_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return result


# ── the parent: child processes, memory, GitNexus ─────────────────────────────────────────────────────────────────


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def tree_rss_kb(pid: int) -> tuple[int, list[tuple[str, int]]]:
    """Sum of the resident set of `pid` and all its descendants now, and (command, kB) of each of them."""
    children = _children_map()
    total, parts, todo = 0, [], [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                kb = int(f.read().split()[1]) * PAGE // 1024
            with open(f"/proc/{p}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:90]
        except OSError:
            continue
        total += kb
        parts.append((command, kb))
    return total, parts


TICK = os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """CPU-seconds all cores spent not idle since boot."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def process_cpu_s(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def run_measured(cmd: list[str], timeout: float, cwd: Path | None = None, stdout: Any = None,
                 stderr: Any = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a command in its own process group; wall time, wait4's ru_maxrss (the largest single process of the
    tree), the sampled peak of the whole tree's summed RSS, and the CPU others used meanwhile (a shared machine)."""
    jvm_pid = (jvm_memory() or {}).get("pid")
    busy_before, jvm_before = machine_busy_s(), process_cpu_s(jvm_pid)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    began = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env,
                               start_new_session=True)
    peak: list[Any] = [0, []]
    with_jvm = [0, 0]  # the peak of the tree's RSS plus the Neo4j JVM's at the same moment; the JVM's own peak
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            total, parts = tree_rss_kb(process.pid)
            if total > peak[0]:
                peak[:] = [total, parts]
            jvm = rss_kb(jvm_pid)
            with_jvm[:] = [max(with_jvm[0], total + jvm), max(with_jvm[1], jvm)]
            done.wait(0.1)

    def expire() -> None:
        if not done.is_set():
            log(f"timeout after {timeout:.0f} s: stopping {cmd[0]} (pid {process.pid})")
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timer = threading.Timer(timeout, expire)
    timer.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    done.set()
    timer.cancel()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    machine = machine_busy_s() - busy_before
    jvm = process_cpu_s(jvm_pid) - jvm_before
    own = usage.ru_utime + usage.ru_stime
    return {"returncode": process.returncode, "wall_s": round(wall, 3), "maxrss_kb": usage.ru_maxrss,
            "tree_peak_kb": peak[0], "tree_at_peak": peak[1], "user_s": round(usage.ru_utime, 2),
            "sys_s": round(usage.ru_stime, 2), "machine_cpu_s": round(machine, 1), "jvm_cpu_s": round(jvm, 1),
            "other_cpu_s": round(machine - own - jvm, 1), "tree_with_jvm_peak_kb": with_jvm[0],
            "jvm_peak_kb": with_jvm[1], "load_before": load_before,
            "load_after": Path("/proc/loadavg").read_text().split()[:3]}


def rss_kb(pid: int | None) -> int:
    if pid is None:
        return 0
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE // 1024
    except OSError:
        return 0


def run_child(mode: str, out: Path, timeout: float, *args: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "bench.ingest", "--child", mode, "--out", str(out), *args]
    measured = run_measured(cmd, timeout, cwd=REPO_ROOT)
    measured["result"] = json.loads(out.read_text()) if out.exists() else None
    if mode == "ingest" and measured["result"] is not None and "clean" not in measured["result"]:
        measured["result"] = None  # it died before the clean ingest finished
    return measured


def jvm_memory() -> dict[str, Any] | None:
    """VmRSS and VmHWM (peak) of the local Neo4j JVM, None when the graph is not kg's local server."""
    from kg.server import local

    settings = bench_settings()
    if settings.uri_configured:
        return None
    pid = local.status(settings).pid
    if pid is None:
        return None
    fields = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    except OSError:
        return None
    return {"pid": pid, "rss_kb": fields.get("VmRSS"), "hwm_kb": fields.get("VmHWM")}


def ensure_server() -> None:
    from kg.server import local

    settings = bench_settings()
    if not settings.uri_configured and not local.is_running(settings):
        log(f"starting the local Neo4j in {settings.data_dir}")
        local.start(settings)


def forget(repo: str) -> float:
    from kg.ingest.writer import GraphWriter

    from kg.store import Store

    began = time.perf_counter()
    with Store.connect(bench_settings()) as store:
        GraphWriter(store, repo).forget_repo()
    return time.perf_counter() - began


# GitNexus ────────────────────────────────────────────────────────────────────────────────────────────────────────
# bench/package.json pins GitNexus and the Node it runs on (its `node` package carries a Node 22 binary from the npm
# registry: GitNexus 1.6.12 requires Node ^22.18, the system's may be older). Both install into bench/node_modules.

NODE_MODULES = BENCH / "node_modules"


def pinned_packages(bench: Path = BENCH) -> dict[str, str]:
    """The exact versions bench/package.json pins, by package name."""
    return json.loads((bench / "package.json").read_text())["dependencies"]


def installed_version(name: str, bench: Path = BENCH) -> str | None:
    meta = bench / "node_modules" / name / "package.json"
    return json.loads(meta.read_text()).get("version") if meta.exists() else None


def install_mismatches(bench: Path = BENCH) -> list[str]:
    """What `npm install --prefix bench` has to fix: pinned packages missing or at another version
    ("gitnexus 1.6.12 (have 1.6.3)"), and the Node binary that the `node` package's install script puts in place."""
    out = []
    for name, want in pinned_packages(bench).items():
        have = installed_version(name, bench)
        if have != want:
            out.append(f"{name} {want} (have {have or 'none'})")
    if "node" in pinned_packages(bench) and not node_bin(bench).exists():
        out.append(f"{node_bin(bench).relative_to(bench)} missing (the node package's install script did not run)")
    return out


def node_bin(bench: Path = BENCH) -> Path:
    return bench / "node_modules" / "node" / "bin" / "node"


def gitnexus_script(bench: Path = BENCH) -> Path:
    """GitNexus' CLI entry point, as its package.json names it (what `npx gitnexus` would run)."""
    meta = json.loads((bench / "node_modules" / "gitnexus" / "package.json").read_text())
    entry = meta["bin"] if isinstance(meta["bin"], str) else meta["bin"]["gitnexus"]
    return bench / "node_modules" / "gitnexus" / entry


# `gitnexus analyze --help` of 1.6.12: --index-only skips writing AGENTS.md/CLAUDE.md and skill files into the
# tree; embeddings are off by default. (1.6.3 had no --index-only; it ran with --skip-agents-md.)
GITNEXUS_ARGS = ("analyze", "{path}", "--index-only")


def gitnexus_command(tree: Path | str, extra_args: list[str], bench: Path = BENCH) -> list[str]:
    """GitNexus' run: the pinned Node on GitNexus' own script, no npx or npm in between (they would add their own
    start-up time and ~100 MB to what is measured)."""
    return [str(node_bin(bench)), str(gitnexus_script(bench)),
            *[a.format(path=tree) for a in GITNEXUS_ARGS], *extra_args]


def gitnexus_env(home: Path, bench: Path = BENCH) -> dict[str, str]:
    """GitNexus' environment: the pinned Node first on PATH (anything it starts by name gets the same Node; it
    re-spawns itself with process.execPath for a larger heap), and HOME in the temporary folder so its registry
    (~/.gitnexus) stays out of the real home."""
    return {**os.environ, "PATH": f"{node_bin(bench).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(home), "NO_COLOR": "1", "CI": "1"}


def gitnexus_install() -> dict[str, Any]:
    """Install GitNexus and its Node into bench/node_modules when they are not there at the pinned versions."""
    info: dict[str, Any] = {}
    missing = install_mismatches()
    if missing:
        args = ["npm", "install", "--prefix", str(BENCH), "--no-audit", "--no-fund", "--no-package-lock"]
        log(f"installing GitNexus and Node ({'; '.join(missing)}): {' '.join(args)} (a few minutes, ~1.3 GB)")
        env = {**os.environ, "ONNXRUNTIME_NODE_INSTALL": "skip"}  # its install script fetches from outside npm
        began = time.perf_counter()
        done = subprocess.run(args, cwd=BENCH, capture_output=True, text=True, timeout=1800, env=env)
        info["install_s"] = round(time.perf_counter() - began, 1)
        missing = install_mismatches()
        if done.returncode != 0 or missing:
            tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
            info["error"] = (f"`{' '.join(args)}` failed (exit {done.returncode}; {'; '.join(missing)}):\n"
                             + "\n".join(tail))
            return info
    info["version"] = installed_version("gitnexus")
    meta = json.loads((NODE_MODULES / "gitnexus" / "package.json").read_text())
    info["engines"] = meta.get("engines")
    node = subprocess.run([str(node_bin()), "--version"], capture_output=True, text=True)
    info["node"] = node.stdout.strip() or f"{node_bin()} failed: {node.stderr.strip()[:200]}"
    info["node_path"] = str(node_bin().relative_to(REPO_ROOT))
    info["command"] = " ".join(str(Path(a).relative_to(REPO_ROOT)) if a.startswith(str(REPO_ROOT)) else a
                               for a in gitnexus_command("DIR", []))
    # the native parts that crashed before: their versions go with any failure GitNexus shows
    info["native"] = {name: installed_version(name) for name in ("@ladybugdb/core", "tree-sitter")}
    return info


def git_snapshot(tree: Path) -> None:
    """Make `tree` a git repository with one commit (GitNexus indexes git repositories)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "corpus", "--no-gpg-sign"]):
        subprocess.run(["git", *args], cwd=tree, env=env, check=True, capture_output=True)


def gitnexus_warm_up(work: Path) -> float:
    """One untimed `gitnexus analyze` of a one-file repository, so that the measured runs find GitNexus' own caches
    as a user's second run does: Node's compile cache and GitNexus' hashes of its own installation (its "analyzer
    identity"), both under the temporary directory (/tmp/gitnexus-analyzer-identity-<uid>, keyed by the install's
    path). Cold, they cost a first run ~4 CPU-seconds more. kg's runs likewise find Python's bytecode compiled."""
    tree = work / "gitnexus-warm-up"
    tree.mkdir(parents=True, exist_ok=True)
    (tree / "warm.py").write_text("def warm():\n    return 1\n")
    git_snapshot(tree)
    (work / "home").mkdir(exist_ok=True)
    began = time.perf_counter()
    subprocess.run(gitnexus_command(tree, []), cwd=BENCH, env=gitnexus_env(work / "home"), capture_output=True,
                   timeout=600)
    shutil.rmtree(tree, ignore_errors=True)
    return round(time.perf_counter() - began, 1)


def parse_time_v(text: str) -> dict[str, Any]:
    """Peak RSS, wall time and a killing signal from `/usr/bin/time -v`'s report."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        line = line.strip()
        key, _, value = line.rpartition(": ")
        if key == "Maximum resident set size (kbytes)":
            out["time_maxrss_kb"] = int(value)
        elif key.startswith("Elapsed (wall clock) time"):
            parts = [float(x) for x in value.split(":")]
            out["time_wall_s"] = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
        elif line.startswith("Command terminated by signal"):
            out["signal"] = int(line.rsplit(" ", 1)[1])
    return out


# What GitNexus' log says went wrong, by the failures seen before (worker pool timeouts with the fallback to one
# thread, native crashes); counted so that a run's figures come with them.
GITNEXUS_TROUBLE = {
    "worker timeouts": re.compile(r"timed out after \d+s", re.I),
    "sequential fallback": re.compile(r"falling back to sequential", re.I),
    "native crash": re.compile(r"Segmentation fault|SIGSEGV|SIGABRT|SIGBUS|core dumped|libc\+\+abi|Napi::Error"
                               r"|FATAL ERROR|double free", re.I),
    "out of memory": re.compile(r"heap out of memory|JavaScript heap|likely OOM", re.I),
    "scope extraction failed": re.compile(r"scope extraction failed", re.I),
}


def gitnexus_log_facts(text: str) -> dict[str, Any]:
    """Figures and trouble read from GitNexus' output: its node/edge counts and own seconds, its JSON log lines
    by level (pino: 40 warn, 50 error, 60 fatal), and the lines matching each kind of known trouble (count and
    the first one)."""
    out: dict[str, Any] = {}
    summary = re.search(r"([\d,]+) nodes \| ([\d,]+) edges", text)
    if summary:
        out["nodes"], out["edges"] = (int(x.replace(",", "")) for x in summary.groups())
    own = re.search(r"indexed successfully \(([\d.]+)s\)", text)
    out["reported_s"] = float(own.group(1)) if own else None
    out["files_failed"] = len(re.findall(r"^\S.* failed for ", text, re.M))
    levels: dict[str, int] = {}
    for level in re.findall(r'^\{"level":(\d+),', text, re.M):
        levels[level] = levels.get(level, 0) + 1
    out["log_levels"] = levels
    trouble = {}
    for kind, pattern in GITNEXUS_TROUBLE.items():
        lines = [line for line in text.splitlines() if pattern.search(line)]
        if lines:
            trouble[kind] = {"count": len(lines), "first": lines[0].strip()[:300]}
    out["trouble"] = trouble
    return out


def gitnexus_run(tree: Path, work: Path, timeout: float, extra_args: list[str]) -> dict[str, Any]:
    git_snapshot(tree)
    timings = work / "gitnexus.time"
    logs = work / "gitnexus.log"
    home = work / "home"
    home.mkdir(exist_ok=True)
    command = gitnexus_command(tree, extra_args)
    cmd = ["/usr/bin/time", "-v", "-o", str(timings), *command]
    with logs.open("wb") as out:
        measured = run_measured(cmd, timeout, cwd=BENCH, stdout=out, stderr=subprocess.STDOUT,
                                env=gitnexus_env(home))
    measured["command"] = " ".join(command)
    measured.update(parse_time_v(timings.read_text() if timings.exists() else ""))
    out_text = logs.read_text(errors="replace")
    plain = [line for line in out_text.strip().splitlines() if not line.startswith('{"level":')]  # not its log
    measured["output_tail"] = "\n".join(plain[-12:])
    measured.update(gitnexus_log_facts(out_text))
    index = tree / ".gitnexus"
    if index.exists():
        measured["index_bytes"] = sum(p.stat().st_size for p in index.rglob("*") if p.is_file())
    return measured


# ── report ────────────────────────────────────────────────────────────────────────────────────────────────────────


def mb(kb: int | None) -> str:
    return "–" if kb is None else f"{kb / 1024:,.0f}"


def fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds:,.2f}" if seconds < 100 else f"{seconds:,.0f}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(r: list[str]) -> str:
        cells = enumerate(zip(r, widths, strict=True))
        return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in cells)

    return "\n".join([line(headers), line(["─" * w for w in widths]), *map(line, rows)])


def render(results: dict[str, Any]) -> str:
    out: list[str] = []
    env = results["environment"]
    gn_info = results.get("gitnexus", {})
    out.append(f"kg ingestion benchmark — {env['when']} — {env['cpus']} CPUs, {env['memory_gb']} GB, "
               f"Neo4j at {env['neo4j']}, GitNexus {gn_info.get('version') or '–'} on Node {gn_info.get('node') or '–'}"
               + (f" (its figures measured by the run of {gn_info['when']})" if gn_info.get("from") else ""))
    out.append(f"command: {env['command']}")
    out.append("")
    headers = ["corpus", "files", "lines", "nodes", "edges", "parse s", "ingest s", "kg RSS MB",
               "neo4j RSS MB", "GitNexus s", "GitNexus MB", "time kg/GN", "mem kg/GN"]
    rows = []
    for name, r in results["corpora"].items():
        ing = (r.get("ingest") or {}).get("result") or {}
        clean = ing.get("clean", {})
        graph = ing.get("graph", {})
        parse = (r.get("parse") or {}).get("result") or {}
        jb, ja = r.get("jvm_before") or {}, r.get("jvm_after") or {}
        gn = r.get("gitnexus") or {}
        gn_ok = gn.get("returncode") == 0
        gn_s = gn.get("wall_s") if gn_ok else None
        gn_kb = gn.get("time_maxrss_kb") if gn_ok else None
        kg_kb = clean.get("maxrss_kb")
        rows.append([
            name, f"{clean.get('files', parse.get('files', 0)):,}", f"{graph.get('loc', parse.get('loc', 0)):,}",
            f"{graph.get('nodes', 0):,}", f"{graph.get('edges', 0):,}", fmt_s(parse.get("parse_s")),
            fmt_s(clean.get("seconds")), mb(kg_kb),
            f"{mb(jb.get('rss_kb'))}→{mb(ja.get('rss_kb'))}" if jb else "–",
            fmt_s(gn_s), mb(gn_kb),
            f"{clean['seconds'] / gn_s:.2f}" if gn_s and clean.get("seconds") else "–",
            f"{kg_kb / gn_kb:.2f}" if gn_kb and kg_kb else "–"])
    out.append(table(headers, rows))
    out.append("")
    out.append("files: code files ingested · lines: their lines (Module.loc) · nodes/edges: the repo's nodes "
               "(Module, Symbol, Document, Chunk, Repo, and the External nodes it points at) and the relationships "
               "going out of them · parse s: parsing every code file, no resolution, no DB · ingest s: clean "
               "ingest into an empty repo (Ingestor.run, cold parse cache) · kg RSS: peak RSS of the ingesting "
               "process (fresh per corpus; Neo4j not included) · neo4j RSS: the JVM's RSS before→after · "
               "GitNexus s/MB: wall time and peak RSS of `gitnexus analyze` (bench/package.json's Node on its "
               "script, no npx) and its whole process tree.")
    for name, r in results["corpora"].items():
        out.append("")
        out.append(f"── {name} {r['version']} ──")
        ing = (r.get("ingest") or {}).get("result")
        if not ing:
            out.append(f"  kg ingest failed: {(r.get('ingest') or {}).get('returncode')}")
        else:
            if ing.get("error"):
                out.append(f"  the ingest child failed part way: {ing['error']}")
            try:
                out.extend(render_corpus(r, ing))
            except KeyError as e:
                out.append(f"  (results incomplete: no {e})")
        gn = r.get("gitnexus")
        if gn:
            if gn.get("returncode") == 0:
                out.append(f"  GitNexus: `{gn['command']}` {gn['wall_s']:.1f} s wall (it reports "
                           f"{fmt_s(gn.get('reported_s'))} s itself), user {gn['user_s']} s + sys {gn['sys_s']} s; "
                           f"{gn.get('nodes', 0):,} nodes, {gn.get('edges', 0):,} edges; "
                           f"{gn.get('files_failed', 0)} 'failed for <file>' warnings"
                           + (f"; other processes used {gn['other_cpu_s']:.0f} CPU-s meanwhile"
                              if gn.get("other_cpu_s") is not None else "")
                           + (f"; index {gn['index_bytes'] / 1e6:.1f} MB" if gn.get("index_bytes") else ""))
                out.append(f"    memory: max RSS of one process {mb(gn.get('time_maxrss_kb'))} MB (/usr/bin/time -v); "
                           f"sampled peak of the whole tree summed {mb(gn.get('tree_peak_kb'))} MB = "
                           + " + ".join(f"{mb(kb)} MB {cmd.split(' ')[0].rsplit('/', 1)[-1]}"
                                        f"{' ' + cmd.split(' ')[1].rsplit('/', 1)[-1] if ' ' in cmd else ''}"
                                        for cmd, kb in gn.get("tree_at_peak", [])))
            else:
                out.append(f"  GitNexus failed (exit {gn.get('returncode')}): `{gn.get('command')}`")
                out.extend("    " + line for line in (gn.get("output_tail") or "").splitlines())
            if gn.get("trouble"):
                out.append("    GitNexus' log: " + render_trouble(gn["trouble"]))
    if results.get("gitnexus", {}).get("error"):
        out.append("")
        out.append("GitNexus could not be installed: " + results["gitnexus"]["error"])
    out.append("")
    out.extend(render_targets(results))
    return "\n".join(out)


def render_trouble(trouble: dict[str, dict[str, Any]]) -> str:
    """One line of the known kinds of trouble GitNexus' log shows (see GITNEXUS_TROUBLE), with the first of each."""
    return "; ".join(f"{kind} ×{t['count']} (first: {t['first'][:160]})" for kind, t in trouble.items())


def render_queries(queries: dict[str, dict[str, Any]], total: float, indent: str = "    ") -> list[str]:
    rows = []
    for name, q in sorted(queries.items(), key=lambda kv: -kv[1]["seconds"]):
        share = 100 * q["seconds"] / total if total else 0
        per_row = f"{1000 * q['seconds'] / q['rows']:.2f}" if q["rows"] else "–"
        rows.append([name, f"{q['calls']:,}", f"{q['rows']:,}", f"{q['seconds']:.2f}", f"{share:.0f}%", per_row])
    lines = table(["query", "calls", "rows", "seconds", "of run", "ms/row"], rows).splitlines()
    return [indent + line for line in lines]


def render_corpus(r: dict[str, Any], ing: dict[str, Any]) -> list[str]:
    from kg.store import BATCH_SIZE

    out = []
    clean = ing["clean"]
    graph = ing["graph"]
    measured = r["ingest"]
    parse = (r.get("parse") or {}).get("result") or {}
    out.append(f"  clean ingest {clean['seconds']:.2f} s, {clean['files']:,} code files + {clean['documents']:,} "
               f"documents, {clean['symbols']:,} symbols; peak RSS {mb(clean['maxrss_kb'])} MB "
               f"(after imports and connect: {mb(clean['maxrss_before_kb'])} MB; child process peak "
               f"incl. updates {mb(measured['maxrss_kb'])} MB)")
    if parse:
        out.append(f"  parse only: walk {parse['walk_s']:.2f} s, read {parse['read_s']:.2f} s, parse "
                   f"{parse['parse_s']:.2f} s ({parse['files']:,} files, {parse['loc']:,} lines, "
                   f"{parse['loc'] / max(parse['parse_s'], 1e-9):,.0f} lines/s), peak RSS {mb(parse['maxrss_kb'])} MB")
    out.append("  nodes: " + ", ".join(f"{k} {v:,}" for k, v in graph["nodes_by_label"].items())
               + " · symbols: " + ", ".join(f"{k} {v:,}" for k, v in sorted(graph["symbols_by_kind"].items())))
    out.append("  edges: " + ", ".join(f"{k} {v:,}" for k, v in graph["edges_by_type"].items()))
    out.append("  phases of the clean ingest (s): "
               + ", ".join(f"{k} {v:.2f}" for k, v in clean["phases"].items()))
    out.append(f"  write queries of the clean ingest (each UNWIND batch of ≤{BATCH_SIZE:,} rows is its own "
               "transaction):")
    out.extend(render_queries(clean["queries"], clean["seconds"]))
    written = sum(q["seconds"] for q in clean["queries"].values())
    out.append(f"    write phase {clean['phases'].get('write', 0):.2f} s, of which named writes "
               f"{written:.2f} s (the rest: the Repo node, row building)")
    out.append(f"  no-change re-run (fresh Ingestor, like `kg ingest` again): {ing['rerun']['seconds']:.2f} s "
               f"(" + ", ".join(f"{k} {v:.2f}" for k, v in ing["rerun"]["phases"].items()) + ")")
    for edit, all_runs in (ing.get("updates") or {}).items():
        runs = [x for x in all_runs if not x.get("error")]
        failed = [x for x in all_runs if x.get("error")]
        label = {"append": "append a new function", "literal": "change a literal in a function body"}[edit]
        for x in failed:
            out.append(f"  one-file update FAILED ({label}) on {x['path']} after {x['seconds']:.1f} s: {x['error']}")
        if not runs:
            continue
        secs = [x["seconds"] * 1000 for x in runs]
        rer = [x["reresolved"] for x in runs]
        out.append(f"  one-file update, {label} (watch-mode Ingestor, n={len(runs)} ok, {len(failed)} failed): p50 "
                   f"{percentile(secs, 50):.0f} ms, p95 {percentile(secs, 95):.0f} ms, min {min(secs):.0f}, "
                   f"max {max(secs):.0f}; files re-resolved per update: median {statistics.median(rer):.0f}, "
                   f"max {max(rer)}")
        phases = {}
        for x in runs:
            for k, v in x["phases"].items():
                phases.setdefault(k, []).append(v * 1000)
        out.append("    median ms per phase: " + ", ".join(f"{k} {statistics.median(v):.0f}"
                                                          for k, v in phases.items()))
        queries: dict[str, dict[str, Any]] = {}
        for x in runs:
            for k, v in x["queries"].items():
                q = queries.setdefault(k, {"calls": 0, "rows": 0, "seconds": 0.0})
                for f in q:
                    q[f] += v[f]
        total = sum(x["seconds"] for x in runs)
        out.append(f"    write queries summed over the {len(runs)} updates:")
        out.extend(render_queries(queries, total, indent="      "))
        slow = sorted(runs, key=lambda x: -x["seconds"])[:3]
        out.append("    slowest: " + "; ".join(f"{x['path']} {x['seconds'] * 1000:.0f} ms "
                                               f"(re-resolved {x['reresolved']})" for x in slow))
    if "restore" in ing:
        restore, again = ing["restore"], ing["rerun_after_updates"]
        out.append(f"  restoring the {restore['files_restored']} edited files: {restore['seconds']:.2f} s "
                   f"(written {restore['written']}, re-resolved {restore['reresolved']})"
                   + (f" FAILED: {restore['error']}" if restore.get("error") else "")
                   + f"; then a fresh re-run {again['seconds']:.2f} s (written {again['written']})"
                   + (f" FAILED: {again['error']}" if again.get("error") else "")
                   + f"; graph equal to the clean ingest's: {'yes' if ing['graph_after_restore_matches'] else 'NO'}")
        if not ing["graph_after_restore_matches"]:
            a, b = ing["graph"], ing["graph_after_restore"]
            out.append(f"    clean: {a['nodes_by_label']} {a['edges_by_type']}")
            out.append(f"    after: {b['nodes_by_label']} {b['edges_by_type']}")
    if clean["files"] != graph["nodes_by_label"].get("Module"):
        out.append(f"  WARNING: {clean['files']} files ingested but {graph['nodes_by_label'].get('Module')} Module "
                   "nodes counted: something else changed the graph during the run (a test's graph_wipe?)")
    cores = os.cpu_count() or 1
    own = measured["user_s"] + measured["sys_s"]
    out.append(f"  CPU while the ingest child ran ({measured['wall_s']:.0f} s wall × {cores} cores = "
               f"{cores * measured['wall_s']:.0f} CPU-s): kg {own:.0f} s, "
               f"Neo4j JVM {measured.get('jvm_cpu_s', 0):.0f} s, "
               f"other processes on the machine {measured.get('other_cpu_s', 0):.0f} s")
    jb, ja = r.get("jvm_before"), r.get("jvm_after")
    if jb and ja:
        out.append(f"  Neo4j JVM (pid {ja['pid']}): RSS {mb(jb['rss_kb'])} → {mb(ja['rss_kb'])} MB, peak (VmHWM) "
                   f"{mb(jb['hwm_kb'])} → {mb(ja['hwm_kb'])} MB")
    return out


def render_targets(results: dict[str, Any]) -> list[str]:
    out = ["targets:"]
    django = results["corpora"].get("django")
    if not django or not (django.get("ingest") or {}).get("result"):
        return out + ["  django was not run"]
    ing = django["ingest"]["result"]
    gn = django.get("gitnexus") or {}
    if gn.get("returncode") == 0:
        gn_kb = gn["time_maxrss_kb"]
        kg_kb = ing["clean"]["maxrss_kb"]
        t = ing["clean"]["seconds"] / gn["wall_s"]
        m = kg_kb / gn_kb
        jvm = (django.get("jvm_after") or {}).get("rss_kb")
        out.append(f"  django wall time ≤ 1/5 of GitNexus': kg {ing['clean']['seconds']:.1f} s / GitNexus "
                   f"{gn['wall_s']:.1f} s = {t:.2f} → {'met' if t <= 0.2 else 'NOT met'}")
        out.append(f"  django peak memory ≤ 1/2 of GitNexus': kg {mb(kg_kb)} MB / GitNexus {mb(gn_kb)} MB = {m:.2f} → "
                   f"{'met' if m <= 0.5 else 'NOT met'}; against GitNexus' summed tree ({mb(gn['tree_peak_kb'])} MB): "
                   f"{kg_kb / gn['tree_peak_kb']:.2f}"
                   + (f"; kg with the Neo4j JVM's RSS added ({mb(kg_kb + jvm)} MB): {(kg_kb + jvm) / gn_kb:.2f}"
                      if jvm else ""))
    else:
        out.append("  django vs GitNexus: not measured (GitNexus did not run)")
    for edit, runs in (ing.get("updates") or {}).items():
        p50 = percentile([x["seconds"] * 1000 for x in runs if not x.get("error")], 50)
        failed = sum(1 for x in runs if x.get("error"))
        if p50 is None:
            out.append(f"  one-file update ({edit}) p50 < 300 ms: no update succeeded")
            continue
        out.append(f"  one-file update ({edit}) p50 < 300 ms: {p50:.0f} ms → {'met' if p50 < 300 else 'NOT met'}"
                   + (f" ({failed} of {len(runs)} updates failed)" if failed else ""))
    return out


# ── same-run pairs: kg vs GitNexus, interleaved ──────────────────────────────────────────────────────────────────


def kg_version() -> str:
    """The commit of the kg checkout being measured (`+dirty` when it has uncommitted changes)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                           capture_output=True, text=True)
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if head.returncode == 0 else "unknown"


def kg_pair_run(tree: Path, repo: str, work: Path, timeout: float) -> dict[str, Any]:
    """One clean `kg ingest TREE --repo REPO --json` as a user runs it: the repo forgotten and an empty parse cache
    first (neither timed); wall time, the client's peak, and the Neo4j JVM's RSS sampled alongside."""
    forget(repo)
    cache = work / "kg-cache"
    shutil.rmtree(cache, ignore_errors=True)
    out = work / "kg-ingest.json"
    env = {**os.environ, "KG_CACHE_DIR": str(cache)}
    cmd = [str(Path(sys.executable).parent / "kg"), "ingest", str(tree), "--repo", repo, "--json"]
    with out.open("wb") as stdout:
        measured = run_measured(cmd, timeout, cwd=REPO_ROOT, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    try:
        report = json.loads(out.read_text())
    except ValueError:
        report = {}
    measured["report"] = {k: report.get(k) for k in ("seconds", "files", "documents", "symbols", "edges", "phases")}
    return measured


def run_pairs(name: str, version: str, source: Path, pairs: int, work: Path, timeout: float,
              extra_args: list[str], repo: str, done: Callable[[list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    """`pairs` interleaved runs, kg then GitNexus, each on its own fresh copy of the corpus; `done` gets the pairs
    so far after each one (a run cut short keeps what it measured)."""
    kg_tree = work / "kg" / f"{name}-{version}"
    shutil.copytree(source, kg_tree, ignore=shutil.ignore_patterns(".complete"))
    out = []
    for i in range(pairs):
        log(f"{name} pair {i + 1}/{pairs}: kg")
        kg = kg_pair_run(kg_tree, repo, work, timeout)
        log(f"{name} pair {i + 1}/{pairs}: kg {kg['wall_s']:.1f} s (exit {kg['returncode']}); GitNexus")
        gn_work = work / f"gitnexus-{i}"
        gn_tree = gn_work / f"{name}-{version}"
        shutil.copytree(source, gn_tree, ignore=shutil.ignore_patterns(".complete"))
        gn = gitnexus_run(gn_tree, gn_work, timeout, extra_args)
        log(f"{name} pair {i + 1}/{pairs}: GitNexus {gn['wall_s']:.1f} s (exit {gn['returncode']})")
        shutil.rmtree(gn_work, ignore_errors=True)
        out.append({"kg": kg, "gitnexus": gn})
        done(out)
    return out


def render_pairs(results: dict[str, Any]) -> str:
    env = results["environment"]
    gn = results.get("gitnexus", {})
    out = [f"kg vs GitNexus, same-run interleaved pairs (kg first) — {env['when']} — {env['cpus']} CPUs, "
           f"{env['memory_gb']} GB, shared machine",
           f"kg {results['kg_version']}: `kg ingest DIR --repo R --json` (repo forgotten, parse cache emptied before "
           f"each run; Neo4j at {env['neo4j']})",
           f"GitNexus {gn.get('version', '–')} on Node {gn.get('node', '–')} ({gn.get('node_path', '–')}, first on "
           f"PATH): `{gn.get('command', '–')}`{''.join(' ' + a for a in results.get('gitnexus_args', []))} on a "
           f"fresh git-committed copy each run, HOME in a temporary folder, after an untimed warm-up run "
           f"({gn.get('warm_up_s', '–')} s); native parts "
           + ", ".join(f"{k} {v}" for k, v in (gn.get("native") or {}).items()),
           f"command: {env['command']}", ""]
    headers = ["pair", "load kg", "kg s", "load GN", "GN s", "kg/GN time", "kg client MB", "JVM MB", "kg+JVM MB",
               "GN MB", "kg+JVM/GN mem", "kg client/GN mem"]
    for name, pairs in results["pairs"].items():
        out.append(f"{name} {results['corpora_versions'][name]}:")
        rows, cols, trouble = [], {h: [] for h in headers[1:]}, []
        for i, pair in enumerate(pairs, 1):
            kg, g = pair["kg"], pair["gitnexus"]
            ok = kg["returncode"] == 0 and g["returncode"] == 0
            values = {"load kg": float(kg["load_before"][0]), "kg s": kg["wall_s"],
                      "load GN": float(g["load_before"][0]), "GN s": g["wall_s"],
                      "kg client MB": kg["tree_peak_kb"] / 1024, "JVM MB": kg["jvm_peak_kb"] / 1024,
                      "kg+JVM MB": kg["tree_with_jvm_peak_kb"] / 1024, "GN MB": g["tree_peak_kb"] / 1024}
            if ok:
                values["kg/GN time"] = kg["wall_s"] / g["wall_s"]
                values["kg+JVM/GN mem"] = kg["tree_with_jvm_peak_kb"] / g["tree_peak_kb"]
                values["kg client/GN mem"] = kg["tree_peak_kb"] / g["tree_peak_kb"]
            for k, v in values.items():
                cols[k].append(v)
            rows.append([str(i)] + [_pair_cell(h, values.get(h)) for h in headers[1:]])
            if not ok:  # below the table: a cell past the headers would not fit it
                trouble.append(f"  pair {i}: kg exit {kg['returncode']}, GitNexus exit {g['returncode']}"
                               + (f" (signal {g['signal']})" if g.get("signal") else "") + " — no ratios")
            if g.get("trouble"):
                trouble.append(f"  pair {i} GitNexus' log: " + render_trouble(g["trouble"]))
        for label, pick in (("min", min), ("median", statistics.median)):
            rows.append([label] + [_pair_cell(h, pick(cols[h]) if cols[h] else None) for h in headers[1:]])
        out.extend("  " + line for line in table(headers, rows).splitlines())
        out.extend(trouble)
        for i, pair in enumerate(pairs, 1):
            report = pair["kg"].get("report") or {}
            if report.get("phases"):
                out.append(f"  pair {i} kg phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in
                                                                      report["phases"].items()))
        out.append("")
    out.append("load: 1-minute load average before each run (2 cores) · kg client MB: peak summed RSS of the `kg` "
               "process tree · JVM MB: the Neo4j JVM's peak RSS sampled during the kg run · kg+JVM: their peak sum "
               "at one moment · GN MB: peak summed RSS of GitNexus' process tree (its launcher process and the "
               "analyzer it re-spawns with a larger heap), sampled every 0.1 s "
               "· ratios per pair; min and median over the pairs.")
    return "\n".join(out)


def _pair_cell(header: str, value: float | None) -> str:
    if value is None:
        return "–"
    if header.startswith("load"):
        return f"{value:.1f}"
    if "/" in header:
        return f"{value:.2f}"
    if header.endswith(" s"):
        return f"{value:.1f}"
    return f"{value:,.0f}"


# ── main ─────────────────────────────────────────────────────────────────────────────────────────────────────────


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=",".join(CORPORA), help="comma-separated: " + ", ".join(CORPORA))
    parser.add_argument("--updates", type=int, default=30, help="one-file updates per edit kind (0: none)")
    parser.add_argument("--update-corpus", default="django", help="corpora that get the incremental updates")
    parser.add_argument("--update-budget", type=float, default=600,
                        help="seconds allowed to each series of updates; a series stops early past it")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--no-gitnexus", action="store_true", help="skip GitNexus")
    parser.add_argument("--pairs", type=int, default=0,
                        help="only time N interleaved same-run pairs per corpus: `kg ingest` then GitNexus")
    parser.add_argument("--gitnexus-from", type=Path,
                        help="reuse the GitNexus figures of an earlier run's --save file instead of running it")
    parser.add_argument("--gitnexus-arg", action="append", default=[], help="extra argument for gitnexus analyze")
    parser.add_argument("--timeout", type=float, default=2700, help="seconds allowed to each measured process")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    parser.add_argument("--save", type=Path, help="also write the results as JSON to this file")
    parser.add_argument("--repo-prefix", default=REPO_PREFIX,
                        help="graph repo names are <prefix><corpus> (two runs at once need different ones)")
    parser.add_argument("--keep", action="store_true", help="keep the bench- repos in the graph and the temp copies")
    # internal: the measured child processes
    parser.add_argument("--child", choices=["parse", "ingest"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--repo", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child == "parse":
        args.out.write_text(json.dumps(child_parse(args.root)))
        return 0
    if args.child == "ingest":
        result: dict[str, Any] = {}
        try:
            child_ingest(args.root, args.repo, args.cache_dir, args.updates, args.seed, args.update_budget, result)
        except BaseException as e:
            result["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
            raise
        finally:
            args.out.write_text(json.dumps(result))
        return 0

    names = [c.strip() for c in args.corpus.split(",") if c.strip()]
    unknown = [c for c in names if c not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}: choose from {', '.join(CORPORA)}")
    update_on = {c.strip() for c in args.update_corpus.split(",")}

    from tests.sdists import sdist

    ensure_server()
    settings = bench_settings()
    results: dict[str, Any] = {"environment": {
        "when": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
        "memory_gb": round(os.sysconf("SC_PHYS_PAGES") * PAGE / 2**30), "neo4j": settings.uri,
        "python": sys.version.split()[0], "command": " ".join(["python -m bench.ingest", *(argv or sys.argv[1:])])},
        "corpora": {}}
    gitnexus = not args.no_gitnexus and not args.gitnexus_from
    earlier: dict[str, Any] = {}
    if args.gitnexus_from:
        earlier = json.loads(args.gitnexus_from.read_text())
        results["gitnexus"] = {**earlier.get("gitnexus", {}), "from": str(args.gitnexus_from),
                               "when": earlier["environment"]["when"]}
    if gitnexus:
        results["gitnexus"] = gitnexus_install()
        if "error" in results["gitnexus"]:
            log(results["gitnexus"]["error"])
            gitnexus = False
        else:
            log("GitNexus: an untimed warm-up run on a one-file repository")
            with tempfile.TemporaryDirectory(prefix="kg-bench-gn-warm-") as warm:
                results["gitnexus"]["warm_up_s"] = gitnexus_warm_up(Path(warm))

    if args.pairs:
        if "error" in results.get("gitnexus", {"error": "--no-gitnexus"}):
            parser.error("--pairs needs GitNexus: " + results.get("gitnexus", {}).get("error", "--no-gitnexus"))
        results["kg_version"] = kg_version()
        results["gitnexus_args"] = args.gitnexus_arg
        results["pairs"], results["corpora_versions"] = {}, {}
        work = Path(tempfile.mkdtemp(prefix="kg-bench-pairs-"))
        try:
            for name in names:
                results["corpora_versions"][name] = CORPORA[name]
                def save(pairs: list[dict[str, Any]], name: str = name) -> None:
                    results["pairs"][name] = pairs
                    if args.save:
                        args.save.write_text(json.dumps(results, indent=1))

                run_pairs(name, CORPORA[name], sdist(name, CORPORA[name]), args.pairs, work / name, args.timeout,
                          args.gitnexus_arg, args.repo_prefix + name, save)
        finally:
            for name in names:
                forget(args.repo_prefix + name)
            shutil.rmtree(work, ignore_errors=True)
        print(json.dumps(results, indent=1) if args.json else render_pairs(results))
        return 0

    work = Path(tempfile.mkdtemp(prefix="kg-bench-"))
    try:
        for name in names:
            version = CORPORA[name]
            source = sdist(name, version)
            r: dict[str, Any] = {"version": version, "source": str(source)}
            results["corpora"][name] = r
            corpus_work = work / name
            tree = corpus_work / f"{name}-{version}"
            shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".complete"))

            log(f"{name}: parse only")
            r["parse"] = run_child("parse", corpus_work / "parse.json", args.timeout, "--root", str(tree))
            r["jvm_before"] = jvm_memory()
            updates = args.updates if name in update_on else 0
            r["ingest"] = run_child("ingest", corpus_work / "ingest.json", args.timeout, "--root", str(tree),
                                    "--repo", args.repo_prefix + name, "--cache-dir", str(corpus_work / "cache"),
                                    "--updates", str(updates), "--seed", str(args.seed),
                                    "--update-budget", str(args.update_budget))
            r["jvm_after"] = jvm_memory()
            if r["ingest"]["returncode"] != 0:
                log(f"{name}: the ingest child exited with {r['ingest']['returncode']}")
            if earlier and (earlier["corpora"].get(name) or {}).get("gitnexus"):
                r["gitnexus"] = {**earlier["corpora"][name]["gitnexus"], "reused_from": earlier["environment"]["when"]}
            if gitnexus:
                gn_tree = corpus_work / "gitnexus" / f"{name}-{version}"
                shutil.copytree(source, gn_tree, ignore=shutil.ignore_patterns(".complete"))
                log(f"{name}: GitNexus")
                r["gitnexus"] = gitnexus_run(gn_tree, corpus_work, args.timeout, args.gitnexus_arg)
                log(f"{name}: GitNexus {r['gitnexus']['wall_s']:.1f} s, exit {r['gitnexus']['returncode']}")
            if args.save:
                args.save.write_text(json.dumps(results, indent=1))
    finally:
        if not args.keep:
            for name in names:
                try:
                    results.setdefault("forget_s", {})[name] = round(forget(args.repo_prefix + name), 2)
                except Exception as e:  # the report still prints
                    log(f"could not forget {args.repo_prefix}{name}: {e}")
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"kept {work}")
    if args.save:
        args.save.write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1) if args.json else render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
