"""How long `kg review` and `kg review --check` take on django, as whole processes (what a person and CI wait for).

    KG_BOLT_PORT=... .venv/bin/python -m bench.review [--runs 5] [--version 5.1.15] [--keep] [--json]

Ingests django (the pinned sdist from tests/sdists.py; an unchanged graph is not rewritten) as repo
`bench-django-review`, then runs `kg review --repo bench-django-review -o <tmp>.html` and `kg review ... --check`
as child processes, one warm-up each, then --runs counted runs in turn. Prints min / median / max wall seconds and
the children's CPU seconds (user + sys, from getrusage), with the machine's load average before and after: the
Neo4j server's own CPU is not in the children's figure. Targets (issue 14): the page under 30 s, --check under 5 s.
The repo is forgotten at the end unless --keep. A benchmark that prints, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.ingest.pipeline import Ingestor  # noqa: E402
from kg.ingest.writer import GraphWriter  # noqa: E402

from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from tests.sdists import sdist  # noqa: E402

REPO = "bench-django-review"
KG = str(Path(sys.executable).parent / "kg")


def timed(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return wall, cpu, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="Counted runs of each command.")
    parser.add_argument("--version", default="5.1.15", help="django sdist version.")
    parser.add_argument("--keep", action="store_true", help="Keep the ingested repo in the graph.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()

    settings = kg_settings.load({})
    with open_graph(settings) as store:
        report = Ingestor(store, sdist("django", args.version), repo=REPO).run()
    load_before = os.getloadavg()
    figures: dict[str, dict] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            commands = {"kg review": [KG, "review", "--repo", REPO, "-o", str(Path(tmp) / "review.html")],
                        "kg review --check": [KG, "review", "--repo", REPO, "--check"]}
            runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
            for command in commands.values():
                timed(command)  # warm-up: caches, query plans
            for _ in range(args.runs):
                for name, command in commands.items():
                    runs[name].append(timed(command))
        for name, measured in runs.items():
            walls, cpus = [m[0] for m in measured], [m[1] for m in measured]
            figures[name] = {"n": len(measured), "wall_min": round(min(walls), 2),
                             "wall_median": round(statistics.median(walls), 2), "wall_max": round(max(walls), 2),
                             "cpu_median": round(statistics.median(cpus), 2), "exit": measured[-1][2]}
    finally:
        if not args.keep:
            with open_graph(settings) as store:
                GraphWriter(store, REPO).forget_repo()
    load_after = os.getloadavg()
    if args.json:
        print(json.dumps({"repo": REPO, "django": args.version, "files": report.files, "figures": figures,
                          "load_before": load_before, "load_after": load_after}, indent=2))
        return
    print(f"django {args.version} as {REPO}: {report.files:,} code files; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after (2-core machine: above 2 the figures are inflated)")
    print(f"{'command':<20} {'n':>3} {'wall min':>9} {'median':>8} {'max':>8} {'kg CPU median':>14}")
    for name, f in figures.items():
        print(f"{name:<20} {f['n']:>3} {f['wall_min']:>9} {f['wall_median']:>8} {f['wall_max']:>8} "
              f"{f['cpu_median']:>14}")


if __name__ == "__main__":
    main()
