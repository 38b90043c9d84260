"""From real bug reports to the files their fixes touched: each retrieval signal alone, fused, and held out.

    KG_BOLT_PORT=... .venv/bin/python -m bench.localization [--data DIR] [--record FILE] [--from FILE] [--json]

Data: the SWE-bench Lite reports of `../shared/eval/localization` (instances.jsonl and source trees; see its
README). Each project's trees are ingested in turn into one repo per project (`loc-<project>`; the next tree of the
same project is an incremental update, and so is its embedding), then every report is ranked by each signal
alone and by the fusion, through kg.retrieve.search.retrieve, the function `kg context` uses.

Prints acc@1/5/10 (share of reports with a file the fix touched in the top k) for each signal alone, for the
fusion with the default weights, for the fusion without each signal (what each one adds), and a leave-one-project-
out check of the weights: the weights are chosen on the other projects from a small grid and scored on the one
left out, so the figure says what a choice made elsewhere is worth on a project it never saw. `--record` keeps the
per-signal rankings (JSON) so `--from` can redo the fusion figures without a graph. A benchmark that prints, not
a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tarfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.ingest.pipeline import Ingestor  # noqa: E402

from kg import settings as kg_settings  # noqa: E402
from kg.archives import extract_tar  # noqa: E402
from kg.graph import open_graph  # noqa: E402
from kg.retrieve import embed, vectors  # noqa: E402
from kg.retrieve.rank import (  # noqa: E402
    DEFAULT_SIGNALS,
    SIGNALS,
    Evidence,
    SignalRanking,
    Weights,
    fuse,
    graph_signal,
)
from kg.retrieve.search import GRAPH_SEEDS, retrieve  # noqa: E402

DEFAULT_DATA = REPO_ROOT.parent.parent / "shared" / "eval" / "localization"
KS = (1, 5, 10)
# weights tried by the held-out check; bodies 0 is the default fusion without it
GRID = {"names": (0.5, 1.0, 2.0), "fulltext": (0.5, 1.0, 2.0), "bodies": (0.0, 1.0, 2.0), "phrases": (0.0, 1.0, 2.0),
        "vectors": (0.5, 1.0, 2.0), "graph": (0.0, 0.25, 0.5), "tests": (0.25, 0.5, 1.0)}
# The graph signal expands from the fusion of the others, so it depends on which others are fused: besides the one
# seeded by every signal, the recorder keeps one seeded by the default fusion and one by the default without each of
# its signals (named by their signals), and a fusion of a set of signals uses the graph its own set seeded.
_SEEDS = tuple(s for s in DEFAULT_SIGNALS if s != "graph")
GRAPH_SEED_SETS = (_SEEDS, *(tuple(s for s in _SEEDS if s != left) for left in _SEEDS))


def project_of(row: dict[str, Any]) -> str:
    return row["repo"].split("/")[-1]


def record(data: Path, work: Path) -> list[dict[str, Any]]:
    """Ingest each tree, rank each report by every signal; the rankings of every instance, as plain data."""
    rows = [json.loads(line) for line in (data / "instances.jsonl").read_text().splitlines() if line.strip()]
    # oldest report first within a project, so each tree is a small incremental step from the one before
    rows.sort(key=lambda r: (project_of(r), int(r["instance_id"].rsplit("-", 1)[1])))
    model = embed.load()
    if isinstance(model, embed.Missing):
        print(f"no embeddings: {model.reason}", file=sys.stderr)
    settings = kg_settings.load()
    out = []
    with open_graph(settings) as store:
        store.apply_schema()
        for row in rows:
            project = project_of(row)
            tree = work / project
            began = time.perf_counter()
            _unpack(data / row["tree"], tree)
            repo = f"loc-{project}"
            report = Ingestor(store, tree, repo=repo, cache_dir=work / "cache").run()
            embedded = 0
            if not isinstance(model, embed.Missing):
                embedded = vectors.sync(store, repo, model).total
            prepared = time.perf_counter() - began
            rankings: dict[str, list[list[Any]]] = {}
            began = time.perf_counter()
            result = retrieve(store, repo, row["problem_statement"], signals=SIGNALS, embedder=model)
            seconds = time.perf_counter() - began
            for name, ranking in result.rankings.items():
                rankings[name] = [[p, round(e.score, 6), e.reasons] for p, e in ranking.files[:100]]
            for seeded_by in GRAPH_SEED_SETS:
                seeds = fuse([r for n, r in result.rankings.items() if n in seeded_by], Weights())[:GRAPH_SEEDS]
                graph = graph_signal(store, repo, {f.path: f.score for f in seeds})
                rankings[graph_name(seeded_by)] = [[p, round(e.score, 6), e.reasons] for p, e in graph.files[:100]]
            out.append({"id": row["instance_id"], "project": project, "gold": row["gold_files"],
                        "rankings": rankings, "fused": result.paths()[:20], "missing": result.missing,
                        "seconds": round(seconds, 3)})
            print(f"{row['instance_id']}: {report.written} files written, {embedded} embedded in {prepared:.1f} s;"
                  f" ranked in {seconds * 1000:.0f} ms; gold at "
                  f"{_rank(result.paths(), row['gold_files'])}", file=sys.stderr)
    return out


def graph_name(seeded_by: tuple[str, ...]) -> str:
    """The recorded graph signal seeded by the fusion of `seeded_by`: `graph:names+fulltext+vectors`."""
    return "graph:" + "+".join(sorted(seeded_by))


def _unpack(archive: Path, tree: Path) -> None:
    """The tree of one report in `tree`, replacing the previous one (files the new tree lacks are removed)."""
    import shutil

    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    with tarfile.open(archive) as t:
        extract_tar(t, tree)


def _rank(paths: list[str], gold: list[str]) -> int | None:
    return next((i for i, p in enumerate(paths, start=1) if p in gold), None)


def rankings_of(item: dict[str, Any]) -> list[SignalRanking]:
    return [SignalRanking(name, [(p, Evidence(s, r)) for p, s, r in files]) for name, files in item["rankings"].items()]


def accuracy(items: list[dict[str, Any]], ranked: dict[str, list[str]]) -> dict[int, float]:
    n = max(len(items), 1)
    return {k: sum(_hit(ranked[i["id"]], i["gold"], k) for i in items) / n for k in KS}


def _hit(paths: list[str], gold: list[str], k: int) -> bool:
    return any(p in gold for p in paths[:k])


def fused(items: list[dict[str, Any]], weights: Weights,
          use: tuple[str, ...] = DEFAULT_SIGNALS) -> dict[str, list[str]]:
    """Fuse the recorded rankings. The graph signal `graph` was recorded from the seeds of the fusion of every
    signal; when a graph seeded by exactly the signals used (with a weight) was recorded too, it stands in."""
    out = {}
    seeded_by = graph_name(tuple(s for s in use if s != "graph" and weights.of(s)))
    for i in items:
        rankings = {r.name: r for r in rankings_of(i)}
        if seeded_by in rankings:
            rankings["graph"] = SignalRanking("graph", rankings[seeded_by].files)
        out[i["id"]] = [f.path for f in fuse([r for n, r in rankings.items() if n in use], weights)]
    return out


def alone(items: list[dict[str, Any]], signal: str) -> dict[str, list[str]]:
    return {i["id"]: [p for p, _, _ in i["rankings"].get(signal, [])] for i in items}


def best_weights(items: list[dict[str, Any]]) -> Weights:
    """The grid point with the best mean of acc@1 and acc@5 on `items` (ties: the first, i.e. the smallest)."""
    best, best_score = Weights(), -1.0
    keys = list(GRID)
    for values in itertools.product(*(GRID[k] for k in keys)):
        w = Weights(**dict(zip(keys, values, strict=True)))
        acc = accuracy(items, fused(items, w, SIGNALS))
        score = acc[1] + acc[5]
        if score > best_score + 1e-9:
            best, best_score = w, score
    return best


def report(items: list[dict[str, Any]]) -> dict[str, Any]:
    figures: dict[str, Any] = {"n": len(items), "alone": {}, "without": {}}
    for s in SIGNALS:
        figures["alone"][s] = accuracy(items, alone(items, s))
    default = Weights()
    figures["fused"] = accuracy(items, fused(items, default))
    for s in DEFAULT_SIGNALS:
        figures["without"][s] = accuracy(items, fused(items, default, tuple(x for x in DEFAULT_SIGNALS if x != s)))
    figures["with_bodies"] = accuracy(items, fused(items, default, SIGNALS))
    by_project: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in items:
        by_project[i["project"]].append(i)
    held: dict[str, list[str]] = {}
    chosen = {}
    for project, rows in by_project.items():
        others = [i for i in items if i["project"] != project]
        w = best_weights(others)
        chosen[project] = w.__dict__
        held.update(fused(rows, w, SIGNALS))
        figures["held_out_" + project] = accuracy(rows, fused(rows, w, SIGNALS))
        figures["default_" + project] = accuracy(rows, fused(rows, default))
    figures["held_out"] = accuracy(items, held)
    figures["held_out_weights"] = chosen
    figures["tuned_on_all"] = best_weights(items).__dict__
    figures["seconds_p50"] = sorted(i["seconds"] for i in items)[len(items) // 2]
    return figures


def print_ranks(items: list[dict[str, Any]]) -> None:
    """Where a file the fix touched ranks, per report: each signal alone and the default fusion (— for absent). The
    misses are read from here: which signal found the file, and which put something else above it."""
    default = fused(items, Weights())
    print(f"{'report':28s} " + " ".join(f"{s:>8s}" for s in SIGNALS) + "    fused")
    for i in items:
        ranks = [_rank(alone([i], s)[i["id"]], i["gold"]) for s in SIGNALS]
        print(f"{i['id']:28s} " + " ".join(f"{r or '—':>8}" for r in ranks)
              + f" {_rank(default[i['id']], i['gold']) or '—':>8}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--work", type=Path, default=REPO_ROOT / ".kg" / "localization")
    parser.add_argument("--record", type=Path, help="Save the per-signal rankings to this JSON file.")
    parser.add_argument("--from", dest="source", type=Path, help="Use rankings saved by --record (no graph).")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--ranks", action="store_true",
                        help="Also print, per report, the rank of a fixed file in each signal and in the fusion.")
    args = parser.parse_args()
    items = json.loads(args.source.read_text()) if args.source else record(args.data, args.work)
    if args.record:
        args.record.write_text(json.dumps(items))
    figures = report(items)
    if args.ranks:
        print_ranks(items)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    line = lambda acc: " ".join(f"acc@{k}={acc[k]:.3f}" for k in KS)  # noqa: E731
    print(f"{figures['n']} reports")
    for s in SIGNALS:
        print(f"  {s:9s} alone        {line(figures['alone'][s])}")
    print(f"  fused (default weights) {line(figures['fused'])}")
    for s in DEFAULT_SIGNALS:
        print(f"  fused without {s:9s} {line(figures['without'][s])}")
    print(f"  fused with bodies       {line(figures['with_bodies'])}")
    print(f"  held out by project     {line(figures['held_out'])}")
    for key in sorted(k for k in figures if k.startswith("held_out_") and k != "held_out_weights"):
        project = key.removeprefix("held_out_")
        print(f"    {project:10s} held out {line(figures[key])}   default {line(figures['default_' + project])}")
    print(f"  weights chosen per held-out project: {figures['held_out_weights']}")
    print(f"  weights tuned on all: {figures['tuned_on_all']}")
    print(f"  ranking p50 {figures['seconds_p50'] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
