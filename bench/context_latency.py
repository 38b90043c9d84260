"""How fast `kg context --task` answers on an ingested repository: warm (a process that already answered, as MCP
and the agent are) per signal, and the CLI end to end (a new process each time).

    KG_BOLT_PORT=... .venv/bin/python -m bench.context_latency --repo django [--runs 3] [--cli-runs 3] [--json]

The repository must be ingested already (`kg ingest PATH --repo NAME --embed`; django takes about a minute plus
the embedding phase): this bench measures answering, not ingesting. Tasks: bench.embed's django-like reports (they
name django code; on another repository they still exercise every signal). One warm-up round, then `--runs` rounds
of `retrieve` (the ranking) and `build` (the budgeted context) per task; p50 / p95 / max in ms, and the p50 of each
signal's own time (`Retrieval.ms`: all but graph run at once, graph after them). The machine's
load average is printed before and after. On a shared machine wall times grow with the load, so the CPU time each
warm context costs is printed too (`context_cpu_ms`, the mean: this process, and the local Neo4j server read from
/proc through its pid file in KG_DATA_DIR, 0 when it is not local): a lower bound of the quiet wall time. A benchmark
that prints figures, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.embed import TASKS, load_avg, percentile  # noqa: E402
from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.retrieve import embed, ties  # noqa: E402
from kg.retrieve.context import build  # noqa: E402
from kg.retrieve.search import retrieve  # noqa: E402


def summary(values: list[float]) -> dict[str, int]:
    return {"p50": round(statistics.median(values)), "p95": round(percentile(values, 0.95)), "max": round(max(values))}


def server_cpu_seconds(settings: kg_settings.Settings) -> float | None:
    """CPU seconds the local Neo4j server has used so far (user + system), or None when it is not ours to read."""
    try:
        pid = (Path(settings.data_dir) / "server.pid").read_text().strip()
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default="django")
    parser.add_argument("--runs", type=int, default=3, help="Rounds over the task texts, after one warm-up round.")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures: dict[str, Any] = {"repo": args.repo, "load_before": load_avg()}
    model = embed.load()
    settings = kg_settings.load()
    with open_graph(settings) as store:
        for text in TASKS:  # warm-up: model loaded, query plans cached, the bodies index built
            build(store, args.repo, text, record=False)
        ties.settle()  # the repository's file ties, read in the background from the second task on
        ranking, context = [], []
        per_signal: dict[str, list[float]] = defaultdict(list)
        cpu = {"client": 0.0, "server": 0.0}
        for _ in range(args.runs):
            for text in TASKS:
                began = time.perf_counter()
                result = retrieve(store, args.repo, text, embedder=model)
                ranking.append((time.perf_counter() - began) * 1000)
                for signal, ms in result.ms.items():
                    per_signal[signal].append(ms)
                began, cpu_began, server_began = time.perf_counter(), time.process_time(), server_cpu_seconds(settings)
                build(store, args.repo, text, record=False)
                context.append((time.perf_counter() - began) * 1000)
                cpu["client"] += time.process_time() - cpu_began
                cpu["server"] += (server_cpu_seconds(settings) or 0.0) - (server_began or 0.0)
        figures["context_cpu_ms"] = {k: round(v * 1000 / len(context)) for k, v in cpu.items()}
        figures["warm_ms"] = {"retrieve": summary(ranking), "context": summary(context)}
        figures["signal_ms_p50"] = {s: round(statistics.median(v), 1) for s, v in per_signal.items()}
    cli = [str(Path(sys.executable).parent / "kg"), "context", "--repo", args.repo, "--task", TASKS[0], "--files"]
    times = []
    for _ in range(args.cli_runs):
        began = time.perf_counter()
        subprocess.run(cli, capture_output=True, check=True)
        times.append(time.perf_counter() - began)
    figures["cli_seconds"] = {"median": round(statistics.median(times), 2), "runs": [round(t, 2) for t in times]}
    figures["load_after"] = load_avg()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
