"""What embeddings and task context cost on django: model start-up, the embedding phase, a one-file edit, and the
latency of `kg context --task` in a warm process and from the CLI.

    KG_BOLT_PORT=... .venv/bin/python -m bench.embed [--version 5.1.15] [--runs 20] [--json]

Ingests django (the pinned sdist from tests/sdists.py, copied to a temporary folder) as repo `bench-django-embed`,
then measures, in this process:
- model start-up: importing onnxruntime/tokenizers and loading the model (a fresh interpreter, timed whole);
- the embedding phase: every symbol and module embedded (wall and CPU seconds, texts per second, peak memory);
- a one-file edit: a function added to one file, re-ingested, then only that file's changed nodes embedded;
- warm latency: `kg.retrieve.search.retrieve` and the whole budgeted context (`kg.retrieve.context.build`) for
  a set of django-like task texts, after one warm-up call each (p50 / p95 / max in ms; the goal is p50 < 300);
- the CLI end to end: `kg context --task … --files` as a new process (median of a few runs).
The machine's load average is printed before and after, since shared machines slow everything. A benchmark that
prints figures, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.ingest.pipeline import Ingestor  # noqa: E402

from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.retrieve import embed, vectors  # noqa: E402
from kg.retrieve.context import build  # noqa: E402
from kg.retrieve.search import retrieve  # noqa: E402
from tests.sdists import sdist  # noqa: E402

REPO = "bench-django-embed"
TASKS = [
    "QuerySet.bulk_create() with update_conflicts=True does not return the primary keys of the updated rows",
    "The admin changelist crashes with a TypeError when list_filter uses a related field that is a OneToOneField",
    "makemigrations generates an AlterField every time for a field whose default is a callable lambda",
    "Translation of the date format in the admin calendar widget ignores LANGUAGE_CODE",
    'Traceback (most recent call last):\n  File "django/db/models/sql/compiler.py", line 1562, in execute_sql\n'
    "    cursor.execute(sql, params)\nProgrammingError: column does not exist",
    "Password reset emails should use the site's domain from the request instead of the Sites framework",
    "Support for ordering by expressions in Window functions is missing in the ORM",
    "cache_page decorator ignores the Vary header set by the view",
    "FileField.storage loses its callable when the model is deconstructed for migrations",
    "The development server does not reload when a template file changes",
    "JSONField lookups with __contains fail on SQLite",
    "Paginator raises EmptyPage for page 1 when the object list is empty and allow_empty_first_page is True",
]


def load_avg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def model_startup() -> dict[str, float]:
    """Import and load the model in a fresh interpreter: what the first `kg context` of a process pays."""
    code = ("import time, resource; t = time.perf_counter(); from kg.retrieve import embed; m = embed.load(); "
            "m.embed(['warm up']); print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, peak = (float(x) for x in done.stdout.split())
    return {"load_seconds": round(seconds, 2), "process_seconds": round(time.perf_counter() - began, 2),
            "peak_rss_mb": round(peak)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default="5.1.15")
    parser.add_argument("--runs", type=int, default=3, help="Rounds over the task texts for the warm latency.")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="Keep the repo's embeddings from an earlier run (the "
                        "embedding phase then embeds only what is stale): for the edit and latency figures alone.")
    args = parser.parse_args()
    model = embed.load()
    if isinstance(model, embed.Missing):
        sys.exit(f"no embedding model: {model.reason}")
    figures: dict[str, Any] = {"model": model.model_id, "load_before": load_avg()}
    figures["startup"] = model_startup()
    settings = kg_settings.load()
    work = Path(tempfile.mkdtemp(prefix="kg-bench-embed-"))
    tree = work / "django"
    shutil.copytree(sdist("django", args.version), tree)
    try:
        with open_graph(settings) as store:
            began = time.perf_counter()
            ingestor = Ingestor(store, tree, repo=REPO)
            ingest = ingestor.run()
            figures["ingest"] = {"files": ingest.files, "written": ingest.written, "seconds": round(
                time.perf_counter() - began, 1)}
            if not args.reuse:
                store.write("retrieve/embed_forget_repo", repo=REPO)  # a clean embedding phase, even on a kept repo
            cpu0, wall0, rss0 = os.times(), time.perf_counter(), rss_mb()
            report = vectors.sync(store, REPO, model)
            cpu1, wall = os.times(), time.perf_counter() - wall0
            figures["embed"] = {"nodes": report.total, "by_label": report.embedded, "seconds": round(wall, 1),
                                "cpu_seconds": round(cpu1.user + cpu1.system - cpu0.user - cpu0.system, 1),
                                "per_second": round(report.total / wall, 1), "peak_rss_mb": round(rss_mb()),
                                "rss_before_mb": round(rss0), "load_after": load_avg()}
            edited = tree / "django" / "utils" / "text.py"
            edited.write_text(edited.read_text() + '\n\ndef shout(text):\n    """Upper-case text."""\n'
                              "    return text.upper()\n")
            began = time.perf_counter()
            step = ingestor.run()  # the same Ingestor, as `kg ingest --watch` keeps it: only the edit is parsed
            one = vectors.sync(store, REPO, model, paths=step.changed)
            figures["one_file_edit"] = {"changed": step.changed, "embedded": one.embedded,
                                        "considered": one.considered, "seconds": round(time.perf_counter() - began, 2)}
            for text in TASKS:  # warm-up: plans cached, model loaded
                build(store, REPO, text, record=False)
            retrieval, context = [], []
            for _ in range(args.runs):
                for text in TASKS:
                    t = time.perf_counter()
                    retrieve(store, REPO, text)
                    retrieval.append((time.perf_counter() - t) * 1000)
                    t = time.perf_counter()
                    build(store, REPO, text, record=False)
                    context.append((time.perf_counter() - t) * 1000)
            figures["warm_ms"] = {name: {"p50": round(statistics.median(v)), "p95": round(percentile(v, 0.95)),
                                         "max": round(max(v))} for name, v in (("retrieve", retrieval),
                                                                               ("context", context))}
        cli = [str(Path(sys.executable).parent / "kg"), "context", "--repo", REPO, "--task", TASKS[0], "--files"]
        times = []
        for _ in range(args.cli_runs):
            t = time.perf_counter()
            subprocess.run(cli, capture_output=True, check=True)
            times.append(time.perf_counter() - t)
        figures["cli_seconds_median"] = round(statistics.median(times), 2)
        figures["cli_command"] = f"kg context --repo {REPO} --task '…' --files"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures["load_after"] = load_avg()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
