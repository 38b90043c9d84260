"""Navigation query latency on a django-sized graph: callers, impact at depth 5 and call paths.

    KG_BOLT_PORT=... .venv/bin/python -m bench.queries [--sample 40] [--seed 7] [--keep] [--json]

Ingests django 5.0.6 (the pinned sdist from tests/sdists.py) as repo `bench-django-q`, picks a seeded random sample
of functions and methods that have callers, and times each question through the same library functions the CLI
uses (`kg.navigate.answers`: symbol resolution included, one warm-up call first so query planning is not timed).
A path is timed from a caller at depth 3 of the symbol (found with the callers query) to the symbol, so a path
exists. Prints p50 / p95 / max per question in milliseconds; the goal is p50 under 100 ms. The repo is forgotten
at the end unless --keep. A benchmark that prints, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.ingest.pipeline import Ingestor  # noqa: E402
from kg.ingest.writer import GraphWriter  # noqa: E402

from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.navigate import answers  # noqa: E402
from tests.sdists import sdist  # noqa: E402

REPO = "bench-django-q"
SAMPLE_QUERY = (
    "MATCH (s:Symbol {repo: $repo}) WHERE s.kind IN ['function', 'method'] AND EXISTS { (s)<-[:CALLS]-() } "
    "RETURN s.qname AS qname ORDER BY qname"
)


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    """Milliseconds one call took, and what it returned."""
    start = time.perf_counter()
    result = run()
    return (time.perf_counter() - start) * 1000, result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=40, help="Symbols to time each question on.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="Keep the ingested repo in the graph.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()

    settings = kg_settings.load({})
    with open_graph(settings) as store:
        store.apply_schema()
        t0 = time.perf_counter()
        report = Ingestor(store, sdist("django", "5.0.6"), repo=REPO).run()
        ingest_s = time.perf_counter() - t0
        try:
            candidates = [r["qname"] for r in store.read_text(SAMPLE_QUERY, repo=REPO)]
            sample = random.Random(args.seed).sample(candidates, min(args.sample, len(candidates)))
            questions: dict[str, Callable[[str], Any]] = {
                "callers (depth 1)": lambda q: answers.callers(store, q, REPO, depth=1, limit=50),
                "callers (depth 3)": lambda q: answers.callers(store, q, REPO, depth=3, limit=50),
                "impact (depth 5)": lambda q: answers.impact(store, [q], REPO, depth=5, limit=100),
            }
            times: dict[str, list[float]] = {name: [] for name in [*questions, "path"]}
            sizes: dict[str, list[int]] = {name: [] for name in times}
            for name, ask in questions.items():
                ask(sample[0])  # warm-up: plan the query once
                for qname in sample:
                    elapsed, answer = timed(lambda a=ask, q=qname: a(q))
                    times[name].append(elapsed)
                    sizes[name].append(answer.total)
            pairs = []
            for qname in sample:
                rows = answers.callers(store, qname, REPO, depth=3, limit=500).rows
                far = [r for r in rows if r["depth"] == 3 and r["kind"] != "module"]
                if far:
                    pairs.append((far[0]["caller"], qname))
            if pairs:
                answers.call_path(store, *pairs[0], REPO)  # warm-up
            for source, target in pairs:
                elapsed, answer = timed(lambda s=source, t=target: answers.call_path(store, s, t, REPO))
                times["path"].append(elapsed)
                sizes["path"].append(answer.total)
        finally:
            if not args.keep:
                GraphWriter(store, REPO).forget_repo()

    figures = {name: {"n": len(ms), "p50_ms": round(statistics.median(ms), 1), "p95_ms": round(percentile(ms, .95), 1),
                      "max_ms": round(max(ms), 1), "median_rows": statistics.median(sizes[name])}
               for name, ms in times.items() if ms}
    if args.json:
        print(json.dumps({"repo": REPO, "files": report.files, "ingest_s": round(ingest_s, 1),
                          "symbols": len(candidates), "figures": figures}, indent=2))
        return
    print(f"django 5.0.6 as {REPO}: {report.files:,} files, ingest {ingest_s:.1f} s, "
          f"{len(candidates):,} called functions/methods, sample {len(sample)}")
    print(f"{'question':<20} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'median rows':>12}")
    for name, f in figures.items():
        print(f"{name:<20} {f['n']:>4} {f['p50_ms']:>8} {f['p95_ms']:>8} {f['max_ms']:>8} {f['median_rows']:>12}")


if __name__ == "__main__":
    main()
