"""Project memory on a real repository: how long checked writes, reads, the audit and export/import take.

    KG_BOLT_PORT=... .venv/bin/python -m bench.memory [--decisions 200] [--hot 50] [--seed 7] [--keep] [--json]

Ingests flask 3.0.3 (the pinned sdist from tests/sdists.py) as repo `bench-memory`, then through the same library
the CLI uses (kg.memory.writes, items, audit, files; agent.memory for the agent's context):
- records one decision about each of `--decisions` sampled functions and methods (a target with no memory yet);
- records `--hot` decisions about one module, so each new one is compared with all the earlier ones;
- writes knowledge for 40 modules; reads everything back, audits, exports to Markdown and imports it unchanged;
- renders the agent's memory segment for the hot module (index + full items under a 400-token budget).
Prints p50 / p95 / max in milliseconds per operation. The repo and its memory are deleted at the end unless
--keep. A benchmark that prints, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.agent.memory import MemorySlot  # noqa: E402
from kg.agent.tokens import Tokenizer  # noqa: E402
from kg.ingest.pipeline import Ingestor  # noqa: E402
from kg.ingest.writer import GraphWriter  # noqa: E402

from kg import settings as kg_settings  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.memory import audit, files, items  # noqa: E402
from kg.memory.config import MemoryConfig  # noqa: E402
from kg.memory.writes import MemoryWriter  # noqa: E402
from tests.sdists import sdist  # noqa: E402

REPO = "bench-memory"
HOT = "src/flask/app.py"
SAMPLE_QUERY = ("MATCH (s:Symbol {repo: $repo}) WHERE s.kind IN ['function', 'method'] RETURN s.qname AS qname "
                "ORDER BY qname")
MODULES_QUERY = "MATCH (m:Module {repo: $repo}) RETURN m.path AS path ORDER BY path"
WORDS = ("cache", "token", "route", "blueprint", "signal", "context", "request", "session", "config", "logger",
         "template", "url", "error", "handler", "json", "stream", "cookie", "header", "timeout", "debug")


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = run()
    return (time.perf_counter() - start) * 1000, result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=200, help="Decisions about distinct symbols.")
    parser.add_argument("--hot", type=int, default=50, help="Decisions about one module.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="Keep the ingested repo in the graph.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    config = MemoryConfig()
    times: dict[str, list[float]] = {}

    def measure(name: str, run: Callable[[], Any]) -> Any:
        elapsed, result = timed(run)
        times.setdefault(name, []).append(elapsed)
        return result

    settings = kg_settings.load({})
    with open_graph(settings) as store:
        store.apply_schema()
        Ingestor(store, sdist("flask", "3.0.3"), repo=REPO).run()
        try:
            writer = MemoryWriter(store, config, "bench", "cli")
            symbols = [r["qname"] for r in store.read_text(SAMPLE_QUERY, repo=REPO)]
            sample = rng.sample(symbols, min(args.decisions, len(symbols)))
            writer.decide("warm-up decision", [sample[0]])  # plan the queries once
            for i, qname in enumerate(sample[1:], start=1):
                measure("decide (new target)", lambda q=qname, i=i: writer.decide(
                    f"{q.rsplit('.', 1)[-1]} keeps contract {rng.choice(WORDS)} {i}", [q]))
            flagged = 0
            for i in range(args.hot):
                text = f"The app {' '.join(rng.sample(WORDS, 4))} rule {WORDS[i % len(WORDS)]}"
                outcome = measure(f"decide (module with up to {args.hot})", lambda t=text: writer.decide(t, [HOT]))
                flagged += bool(outcome.conflicts)
            modules = [r["path"] for r in store.read_text(MODULES_QUERY, repo=REPO)][:40]
            for path in modules:
                measure("knowledge set", lambda p=path: writer.put_knowledge(
                    [p], f"What {p} is for.", [f"A point about {p}."]))
            item = items.load(store, REPO, paths=[HOT])[0]
            for _ in range(20):
                item = items.get(store, item.id)
                measure("update (confirm)", lambda it=item: writer.update(it, {"confidence": round(rng.random(), 3)}))
            for _ in range(5):
                everything = measure("read all items", lambda: items.load(store, REPO))
                measure("audit", lambda: audit.audit(store, config, REPO))
            slot = MemorySlot(store, REPO, "no-plan", Tokenizer())
            for _ in range(10):
                measure("agent memory segment", lambda: slot.render([HOT, "src/flask/ctx.py"], 400))
            with tempfile.TemporaryDirectory() as folder:
                for _ in range(3):
                    written = measure("export", lambda f=folder: files.export(store, REPO, Path(f)))
                    importer = MemoryWriter(store, config, "bench", "import")
                    measure("import (unchanged)", lambda f=folder, w=importer: files.import_folder(store, w, Path(f)))
        finally:
            if not args.keep:
                items.forget_repo(store, REPO)
                GraphWriter(store, REPO).forget_repo()

    figures = {name: {"n": len(ms), "p50_ms": round(statistics.median(ms), 1), "p95_ms": round(percentile(ms, .95), 1),
                      "max_ms": round(max(ms), 1)} for name, ms in times.items()}
    summary = {"repo": REPO, "items": len(everything), "files": len(written), "hot_flagged": flagged,
               "figures": figures}
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"flask 3.0.3 as {REPO}: {len(everything)} memory items, {len(written)} memory files, "
          f"{flagged} of {args.hot} hot-module decisions flagged by the heuristics")
    print(f"{'operation':<34} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, f in figures.items():
        print(f"{name:<34} {f['n']:>4} {f['p50_ms']:>8} {f['p95_ms']:>8} {f['max_ms']:>8}")


if __name__ == "__main__":
    main()
