"""Micro call-graph benchmark of the PyCG kind: small programs per category, each with its expected call graph.

    .venv/bin/python -m bench.callgraph [--category arguments,lambdas] [--python OTHER/.venv/bin/python] [--json]
    .venv/bin/python -m bench.callgraph --check       # every edge that runs is expected (see below)
    .venv/bin/python -m bench.callgraph --trace CASE  # print the dynamic call graph of one case (to write one)

A case is a folder `bench/callgraph/cases/<category>/<case>/` of .py files (its `main.py` runs every path of the
program) and `callgraph.json`, the expected graph in PyCG's adjacency format: every module, function, method and
lambda as a key (class bodies that call something too), each with the sorted list of what it calls. Names follow
kg's qnames: modules by path relative to the case, lambdas `<enclosing>.<lambdaN>`, builtins `<builtin>.len`,
methods of builtin types `<builtin>.str.join` (not their dunder methods: `super().__new__(cls)` reaching
`object.__new__` is interpreter machinery), code outside the case by its import path (`functools.partial`).
Calling a class whose constructor is not in the case is no edge (nothing of the case runs).

For each case the benchmark ingests the folder into the graph (repo `cg-<category>-<case>`), exports it exactly as
`kg export callgraph --format pycg` does (the command itself, run in-process with click's test runner, at its
default `--min-confidence`), forgets the repo, and compares edges (caller → callee pairs): precision = expected
edges found / edges exported, recall = expected edges found / expected edges, per category (summed over its
cases) and overall. `--python` runs the ingest and export with another environment's kg (another checkout's
`.venv/bin/python`), so the same cases measure a before and an after.

`--check` runs every case's `main.py` under bench/callgraph/trace.py (with builtins) and reports edges that ran
but are missing from callgraph.json: the expected graphs were written from those traces and reviewed by hand (type
calls such as `list()` or `super()`, which the profiler does not report, and external calls were added).

Needs the test Neo4j (the settings of tests/conftest.py: KG_TEST_BOLT_PORT, KG_TEST_HTTP_PORT), started if it is
not running. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
ROOT = HERE.parents[1]

# Runs inside the measured environment (any kg checkout): ingest, export through the CLI command, forget.
_DRIVER = r"""
import json, sys
from click.testing import CliRunner
from kg.cli import cli as kg_main
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter
from kg.settings import load
from kg.store import Store

cases = json.loads(sys.argv[1])
out = {}
with Store.connect(load()) as store:
    for repo, folder in cases:
        GraphWriter(store, repo).forget_repo()
        Ingestor(store, folder, repo=repo).run()
        result = CliRunner().invoke(kg_main, ["export", "callgraph", "--repo", repo, "--format", "pycg"],
                                    catch_exceptions=False)
        out[repo] = json.loads(result.output)
        GraphWriter(store, repo).forget_repo()
print(json.dumps(out))
"""


def all_cases(categories: list[str] | None) -> list[Path]:
    found = sorted(p.parent for p in CASES.glob("*/*/callgraph.json"))
    return [c for c in found if not categories or c.parent.name in categories]


def _builtin_dunder(callee: str) -> bool:
    """`<builtin>.object.__new__`: a builtin type's dunder method, which the graphs leave out (the interpreter's
    machinery: the profiler sees some of them, like object.__new__, and not others, like object.__init__)."""
    last = callee.rsplit(".", 1)[-1]
    return callee.startswith("<builtin>.") and callee.count(".") == 2 and last.startswith("__") and last.endswith("__")


def edges(graph: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def static_graphs(cases: list[Path], python: str) -> dict[Path, dict[str, list[str]]]:
    """The exported graph of every case, ingested and exported by `python`'s kg against the test Neo4j."""
    sys.path.insert(0, str(ROOT))
    from tests.conftest import test_server_settings

    settings = test_server_settings()
    from kg.server import local

    if not settings.uri_configured and not local.status(settings).running:
        local.start(settings)
    python = str(Path(python).absolute()) if os.sep in python else python
    repos = [(f"cg-{c.parent.name}-{c.name}", str(c)) for c in cases]
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_PASSWORD": settings.password, "KG_PROJECT": scratch}
        done = subprocess.run([python, "-c", _DRIVER, json.dumps(repos)], cwd=scratch, env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        raise SystemExit(f"the ingest/export driver failed:\n{done.stderr[-3000:]}")
    graphs = json.loads(done.stdout.strip().splitlines()[-1])
    return {c: graphs[repo] for c, (repo, _) in zip(cases, repos, strict=True)}


def module_names(case: Path) -> dict[str, str]:
    from kg.ingest.languages import by_name

    paths = sorted(p.relative_to(case).as_posix() for p in case.rglob("*.py"))
    return by_name("python").module_names(paths)


def trace(case: Path) -> dict[str, list[str]]:
    """The dynamic call graph of the case's main.py, builtins included."""
    with tempfile.TemporaryDirectory() as scratch:
        names, out = Path(scratch) / "names.json", Path(scratch) / "edges.json"
        names.write_text(json.dumps(module_names(case)))
        subprocess.run([sys.executable, str(HERE / "trace.py"), "--root", str(case), "--names", str(names),
                        "--out", str(out), "--builtins", "--", str(case / "main.py")], cwd=case, check=True,
                       capture_output=True)
        graph: dict[str, set[str]] = {}
        for edge in json.loads(out.read_text())["edges"]:
            graph.setdefault(edge["caller"], set()).add(edge["callee"])
    return {k: sorted(v) for k, v in sorted(graph.items())}


def score(expected: set[tuple[str, str]], found: set[tuple[str, str]]) -> dict[str, float | int | None]:
    hits = len(expected & found)
    return {"expected": len(expected), "found": len(found), "hits": hits,
            "precision": round(hits / len(found), 3) if found else None,
            "recall": round(hits / len(expected), 3) if expected else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--category", help="comma-separated categories (default: all)")
    parser.add_argument("--python", default=sys.executable, help="the Python whose kg ingests and exports")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="list every missing and unexpected edge")
    parser.add_argument("--check", action="store_true", help="check the expected graphs against traces")
    parser.add_argument("--trace", type=Path, help="print the dynamic call graph of one case folder")
    args = parser.parse_args(argv)
    if args.trace:
        print(json.dumps(trace(args.trace.resolve()), indent=2))
        return 0
    cases = all_cases(args.category.split(",") if args.category else None)
    if args.check:
        bad = 0
        for case in cases:
            ran = {(a, b) for a, b in edges(trace(case)) if not _builtin_dunder(b)}
            missing = ran - edges(json.loads((case / "callgraph.json").read_text()))
            for caller, callee in sorted(missing):
                bad += 1
                print(f"{case.relative_to(CASES)}: ran but not expected: {caller} -> {callee}")
        print(f"{len(cases)} cases checked, {bad} edges that ran are missing from the expected graphs")
        return 1 if bad else 0

    graphs = static_graphs(cases, args.python)
    by_category: dict[str, tuple[set, set]] = {}
    details = []
    for case in cases:
        name = f"{case.parent.name}/{case.name}"
        expected = {(name, *e) for e in edges(json.loads((case / "callgraph.json").read_text()))}
        found = {(name, *e) for e in edges(graphs[case])}
        exp, got = by_category.setdefault(case.parent.name, (set(), set()))
        exp |= expected
        got |= found
        details += [("missing", *e) for e in sorted(expected - found)] + [("unexpected", *e) for e in
                                                                           sorted(found - expected)]
    rows = {cat: score(exp, got) for cat, (exp, got) in sorted(by_category.items())}
    rows["overall"] = score(set().union(*(e for e, _ in by_category.values())),
                            set().union(*(g for _, g in by_category.values())))
    if args.json:
        print(json.dumps({"python": args.python, "cases": len(cases), "categories": rows,
                          "differences": [{"kind": k, "case": c, "caller": a, "callee": b} for k, c, a, b in details]},
                         indent=2))
        return 0
    print(f"micro call-graph benchmark: {len(cases)} cases, kg from {args.python}")
    print(f"{'category':14} {'cases':>5} {'expected':>8} {'found':>6} {'hits':>5} {'precision':>9} {'recall':>7}")
    counts = {cat: sum(1 for c in cases if c.parent.name == cat) for cat in by_category}
    for cat, r in rows.items():
        print(f"{cat:14} {counts.get(cat, len(cases)):>5} {r['expected']:>8} {r['found']:>6} {r['hits']:>5} "
              f"{r['precision'] if r['precision'] is not None else '–':>9} "
              f"{r['recall'] if r['recall'] is not None else '–':>7}")
    if args.verbose:
        for kind, case, caller, callee in details:
            print(f"  {kind:10} {case}: {caller} -> {callee}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
