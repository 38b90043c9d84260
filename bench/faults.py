"""Fault injection on real test suites: does kg select the tests a change breaks?

    .venv/bin/python -m bench.faults --project flask [--faults 30] [--seed 7] [--json]

For a project (flask, requests, click from their PyPI sdists, see tests/suites.py): ingest a git-committed copy,
observe its whole suite once (`kg observe`), then for each of N functions or methods the suite runs (chosen at
random with the seed) inject `raise RuntimeError` as the function's first statement (after its docstring),
re-ingest, select the tests `kg changes` would (its test part only: its impact part is not needed and took
minutes per fault on click) with static, observed and combined evidence, run the *whole* suite to know which
tests really fail (minus those that fail without the fault), and restore the file. Prints
recall (failing tests selected / failing tests) and precision (selected tests that fail / selected tests), summed
over all faults (and recall averaged per fault), per kind of evidence. A selected test function without
parameters stands for all of its parametrized node ids. Needs the test Neo4j of tests/conftest.py
(KG_TEST_BOLT_PORT ...) or NEO4J_URI.

Which tests fail under a fault depends on the project and the fault, not on kg: `--truth FILE` keeps them per
project and fault in FILE (JSON) and reuses them on later runs instead of running the suite again, so a change to
kg's selection is measured against the same failures in minutes (delete the file to measure them again).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from kg.ingest.observe.observer import observe
from kg.ingest.pipeline import Ingestor

from kg.navigate.answers import tests_for_targets
from kg.navigate.changes import changed_symbols, git_diff, parse_diff
from kg.navigate.evidence import pytest_ids
from kg.navigate.targets import Target
from kg.store import Store
from tests import suites
from tests.conftest import test_server_settings

EVIDENCE = ("static", "observed", "combined")
_REPORTED = re.compile(r"^(FAILED|ERROR) (?P<id>.+?)(?: - .*)?$")
_PARAMS = re.compile(r"\[.*\]$")


def run_suite(name: str, root: Path, *extra: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(suites.command(name, root, *extra), cwd=root, env=suites.env(root), capture_output=True,
                          text=True, timeout=timeout)


def collected(name: str, root: Path) -> list[str]:
    done = run_suite(name, root, "--collect-only", "-q")
    return [line.strip() for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")]


# What the user sees when a fault breaks a test module's import: without --continue-on-collection-errors pytest stops
# the session and no other test runs, so the tests that would fail at run time were never counted.
TRUTH_ARGS = ("-q", "-rfE", "--tb=no", "-o", "console_output_style=classic", "--continue-on-collection-errors")


def failing(name: str, root: Path, every: list[str]) -> set[str]:
    """Node ids that fail or error when the whole suite runs."""
    done = run_suite(name, root, *TRUTH_ARGS)
    return reported_failures(done.stdout, done.returncode, every)


def reported_failures(output: str, returncode: int, every: list[str]) -> set[str]:
    """The tests of `every` that pytest's `-rfE` summary in `output` names as failed or errored. A node that is not
    a test (a module, class or parametrized function that failed to collect) fails every test under it; a session
    that died before naming anything (a broken conftest, exit code 2-4) fails them all."""
    out: set[str] = set()
    for line in output.splitlines():
        if m := _REPORTED.match(line.strip()):
            node = m["id"]
            out |= {t for t in every if t == node or t.startswith((node + "::", node + "/", node + "["))}
    if returncode in (2, 3, 4) and not out:
        out = set(every)
    return out


def functions_to_break(store: Store, repo: str, root: Path, count: int, seed: int) -> list[dict]:
    rows = store.read("observe/covered_symbols", repo=repo)
    usable = [r for r in rows if _locate(root / r["path"], r["line"], r["qname"].rsplit(".", 1)[-1])]
    random.Random(seed).shuffle(usable)
    return sorted(usable[:count], key=lambda r: r["qname"])


def _locate(path: Path, line: int, name: str) -> tuple[int, int] | None:
    """(line to insert before, indent) for the function `name` starting (with decorators) at `line`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if start != line:
                continue
            body = node.body
            first = body[0]
            if first.lineno == node.lineno:
                return None  # `def f(): return x` on one line
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str)
            if docstring and len(body) == 1:
                return (first.end_lineno + 1, first.col_offset)
            at = body[1] if docstring else first
            return (at.lineno, first.col_offset)
    return None


def inject(path: Path, line: int, name: str) -> str:
    original = path.read_text(encoding="utf-8")
    where = _locate(path, line, name)
    assert where is not None
    lines = original.splitlines(keepends=True)
    lines.insert(where[0] - 1, " " * where[1] + 'raise RuntimeError("fault injected by bench.faults")\n')
    path.write_text("".join(lines), encoding="utf-8")
    return original


def expand(selected: list[str], every: list[str]) -> set[str]:
    """Selected ids as concrete node ids: a function id stands for each of its parametrized ids."""
    by_function: dict[str, list[str]] = {}
    for t in every:
        by_function.setdefault(_PARAMS.sub("", t), []).append(t)
    out: set[str] = set()
    for s in selected:
        out |= set(by_function.get(s, [s])) if s in by_function else {s}
    return out & set(every)


def bench(project: str, faults: int, seed: int, log=print, truth: Path | None = None) -> dict:
    settings = test_server_settings()
    repo = f"faults-{project}"
    with tempfile.TemporaryDirectory(prefix=f"faults-{project}-") as tmp, Store.connect(settings) as store:
        root = suites.checkout(project, Path(tmp) / project)
        os.environ.update(suites.env(root))  # what `kg observe` passes on to the suite: the copy's src/ first
        _forget(store, repo)
        Ingestor(store, root, repo=repo).run()
        began = time.perf_counter()
        report = observe(store, root, repo, suites.command(project, root), replace=True,
                         work_dir=Path(tmp) / "work")
        log(f"{project}: observed {report.tests} tests in {report.suite_seconds:.1f} s "
            f"(kg observe {time.perf_counter() - began:.1f} s), {report.failed} failing before any fault")
        every = collected(project, root)
        baseline = failing(project, root, every)
        chosen = functions_to_break(store, repo, root, faults, seed)
        known = json.loads(truth.read_text()) if truth and truth.exists() else {}
        if known.get("_args") != list(TRUTH_ARGS):  # recorded another way (before collection errors counted)
            known = {"_args": list(TRUTH_ARGS)}
        recorded = known.setdefault(project, {})
        totals = {e: Counter() for e in EVIDENCE}
        per_fault = []
        for n, target in enumerate(chosen, 1):
            path = root / target["path"]
            t0 = time.perf_counter()
            original = inject(path, target["line"], target["qname"].rsplit(".", 1)[-1])
            try:
                Ingestor(store, root, repo=repo).run()
                touched, _ = changed_symbols(store, repo, parse_diff(git_diff(root)))  # what `kg changes` selects for,
                targets = [Target(repo, r["qname"], r["kind"], r["path"], r["start_line"]) for r in touched]
                picked = {e: expand(pytest_ids(tests_for_targets(store, targets, limit=None, evidence=e).rows), every)
                          for e in EVIDENCE}  # without its impact part, unused here (minutes per fault on click)
                key = f"{target['qname']}@{target['path']}:{target['line']}"
                if key in recorded:
                    failed = set(recorded[key]) & set(every)
                else:
                    failed = failing(project, root, every) - baseline
                    recorded[key] = sorted(failed)
            finally:
                path.write_text(original, encoding="utf-8")
            if truth:
                truth.write_text(json.dumps(known, indent=1, sort_keys=True))
            row = {"fault": target["qname"], "failed": len(failed), "seconds": round(time.perf_counter() - t0, 1),
                   "load": round(os.getloadavg()[0], 1)}  # the machine is shared: figures go with its load
            for e in EVIDENCE:
                tp, fp, fn = len(picked[e] & failed), len(picked[e] - failed), len(failed - picked[e])
                totals[e].update(tp=tp, fp=fp, fn=fn)
                row[e] = {"selected": len(picked[e]), "missed": sorted(failed - picked[e])[:5], "tp": tp, "fp": fp,
                          "fn": fn}
            per_fault.append(row)
            log(f"  {n:2}/{len(chosen)} {target['qname']}: {len(failed)} fail (load {row['load']}); selected "
                + ", ".join(f"{e} {row[e]['selected']} (missed {row[e]['fn']})" for e in EVIDENCE))
        _forget(store, repo)
    summary = {e: {**_scores(totals[e]), "mean_recall": _mean([r[e]["tp"] / r["failed"] for r in per_fault
                                                                if r["failed"]])} for e in EVIDENCE}
    return {"project": project, "faults": len(per_fault), "seed": seed, "tests": len(every),
            "baseline_failures": len(baseline), "summary": summary, "per_fault": per_fault}


def _forget(store: Store, repo: str) -> None:
    store.write("ingest/repo_delete", repo=repo)
    store.write("ingest/repo_node_delete", repo=repo)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _scores(c: Counter) -> dict:
    tp, fp, fn = c["tp"], c["fp"], c["fn"]
    return {"recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None, "tp": tp, "fp": fp, "fn": fn}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="flask", help="flask, requests or click (comma-separated for several)")
    parser.add_argument("--faults", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="Print the results as JSON at the end.")
    parser.add_argument("--truth", type=Path, help="JSON file keeping the tests each fault fails, reused when present.")
    args = parser.parse_args()
    results = []
    for project in args.project.split(","):
        result = bench(project.strip(), args.faults, args.seed, log=lambda m: print(m, file=sys.stderr, flush=True),
                       truth=args.truth)
        results.append(result)
        print(f"\n{project}: {result['faults']} faults, {result['tests']} tests ({result['baseline_failures']} "
              "failing without a fault)")
        print(f"  {'evidence':<10} {'recall':>7} {'precision':>10} {'tp':>6} {'fp':>6} {'fn':>6} {'mean recall':>12}")
        for e, s in result["summary"].items():
            print(f"  {e:<10} {s['recall']!s:>7} {s['precision']!s:>10} {s['tp']:>6} {s['fp']:>6} {s['fn']:>6} "
                  f"{s['mean_recall']!s:>12}")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
