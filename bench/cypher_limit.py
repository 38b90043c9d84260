"""Typed Cypher with a limit: the guarded stream (`answers.run_cypher`) against reading every row first.

    KG_BOLT_PORT=... .venv/bin/python -m bench.cypher_limit [--rows 3000000] [--limit 5] [--json]

Runs `UNWIND range(1, ROWS) AS x RETURN x, 'row ' + toString(x) AS label` with LIMIT rows shown, twice: through
`answers.run_cypher` (read-only checks, server timeout, a stream closed once limit + 1 rows are in) and through
`Store.read_text` (every row materialized, then cut: what kg did before), in that order. Prints the wall time of
each and how much the process's peak resident memory grew during it. A benchmark that prints, not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.navigate import answers  # noqa: E402

QUERY = "UNWIND range(1, $rows) AS x RETURN x, 'row ' + toString(x) AS label"


def measured(run: Callable[[], Any]) -> dict[str, float]:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.perf_counter()
    run()
    seconds = time.perf_counter() - began
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before  # KiB on Linux
    return {"seconds": round(seconds, 3), "peak_rss_growth_mb": round(grown / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with open_graph(kg_settings.load({})) as store:
        answers.run_cypher(store, QUERY, {"rows": 10}, args.limit)  # warm-up: plan once
        figures = {
            "stream (run_cypher)": measured(lambda: answers.run_cypher(store, QUERY, {"rows": args.rows}, args.limit)),
            "materialize (read_text)": measured(lambda: store.read_text(QUERY, rows=args.rows)[:args.limit]),
        }
    if args.json:
        print(json.dumps({"rows": args.rows, "limit": args.limit, "figures": figures}, indent=2))
        return
    print(f"UNWIND range(1, {args.rows:,}) with limit {args.limit}")
    for name, f in figures.items():
        print(f"{name:<25} {f['seconds']:>9.3f} s {f['peak_rss_growth_mb']:>9.1f} MB peak memory growth")


if __name__ == "__main__":
    main()
