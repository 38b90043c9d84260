"""`retrieve(store, repo, task)`: a task's ranked files with the signals and reasons behind each, and what is missing.

The one ranking behind `kg context --task`, the MCP `context` tool and the agent; kg.retrieve.context turns it into
a budgeted context. Signals that cannot run are named once in `missing` with how to get them, and the others
still rank.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import InputError, QueryError
from kg.retrieve import embed
from kg.retrieve.bodies import bodies_signal
from kg.retrieve.phrases import phrases_signal
from kg.retrieve.rank import (
    DEFAULT_SIGNALS,
    DEPTH,
    SIGNALS,
    RankedFile,
    SignalRanking,
    Weights,
    fulltext_signal,
    fuse,
    graph_signal,
    names_signal,
    vectors_signal,
)
from kg.retrieve.text import TaskText, read_task
from kg.retrieve.vectors import index_dims
from kg.store import Store

GRAPH_SEEDS = 10  # best fused files that seed the graph signal


@dataclass
class Retrieval:
    repo: str
    task: TaskText
    files: list[RankedFile]
    rankings: dict[str, SignalRanking] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # signal → why it did not run
    ms: dict[str, float] = field(default_factory=dict)  # signal → milliseconds it took (all but graph run at once)

    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def to_dict(self, limit: int = 20) -> dict[str, Any]:
        return {"repo": self.repo, "task_cut": self.task.cut,
                "mentions": [{"text": m.text, "shape": m.shape} for m in self.task.mentions[:30]],
                "missing": self.missing, "ms": {k: round(v, 1) for k, v in self.ms.items()},
                "files": [f.to_dict() for f in self.files[:limit]]}


def repo_status(store: Store, repo: str) -> dict[str, Any]:
    row = store.read("retrieve/repo_status", repo=repo)[0]
    if not row["exists"]:
        raise InputError(f"no repository {repo!r} in the graph: ingest it with `kg ingest PATH --repo {repo}`")
    return row


def retrieve(store: Store, repo: str, text: str, weights: Weights | None = None,
             signals: tuple[str, ...] = DEFAULT_SIGNALS,
             embedder: embed.Embedder | embed.Missing | None = None) -> Retrieval:
    """Rank the files of `repo` for a task or bug report. `embedder` None loads the installed model (once)."""
    weights = weights or Weights()
    unknown = set(signals) - set(SIGNALS)
    if unknown:
        raise InputError(f"unknown signal {sorted(unknown)[0]!r}: use {', '.join(SIGNALS)}")
    status = repo_status(store, repo)
    task = read_task(text)
    result = Retrieval(repo, task, [])
    if task.empty:
        return result
    # The signals but graph are independent: asked at once, the slowest (embedding the task, then the vector
    # search) sets the latency instead of their sum. The driver is thread-safe; each read has its own session.
    jobs: dict[str, Callable[[], SignalRanking | str]] = {}
    if "names" in signals:
        jobs["names"] = lambda: names_signal(store, repo, task, status["files"])
    if "fulltext" in signals:
        jobs["fulltext"] = lambda: fulltext_signal(store, repo, task, repos=status["repos"])
    if "bodies" in signals:
        jobs["bodies"] = lambda: bodies_signal(store, repo, task, Path(status["root"]) if status["root"] else None,
                                               (status["ingested_at"], status["files"]))
    if "phrases" in signals:
        jobs["phrases"] = lambda: phrases_signal(store, repo, task, Path(status["root"]) if status["root"] else None,
                                                 (status["ingested_at"], status["files"]))
    if "vectors" in signals:
        jobs["vectors"] = lambda: _vectors(store, repo, task, status, embedder)
    with ThreadPoolExecutor(max_workers=len(jobs) or 1) as pool:
        done = {name: pool.submit(_timed, job) for name, job in jobs.items()}
        answers = {}
        for name, future in done.items():
            answers[name], result.ms[name] = future.result()
    rankings: list[SignalRanking] = []
    for name, answer in answers.items():
        if isinstance(answer, str):
            result.missing[name] = answer
        else:
            rankings.append(answer)
    if "graph" in signals:
        seeds = fuse(rankings, weights)[:GRAPH_SEEDS] if rankings else []
        if seeds:
            graph, result.ms["graph"] = _timed(lambda: graph_signal(store, repo, {f.path: f.score for f in seeds},
                                                                   version=status["ingested_at"]))
            rankings.append(graph)
        elif signals == ("graph",):
            result.missing["graph"] = "the graph signal expands from the other signals' hits; it cannot run alone"
    result.rankings = {r.name: r for r in rankings}
    result.files = fuse(rankings, weights, DEPTH)
    return result


def _timed(job: Callable[[], Any]) -> tuple[Any, float]:
    began = time.perf_counter()
    answer = job()
    return answer, (time.perf_counter() - began) * 1000


def _vectors(store: Store, repo: str, task: TaskText, status: dict[str, Any],
             embedder: embed.Embedder | embed.Missing | None) -> SignalRanking | str:
    """The vectors signal, or why it cannot run."""
    if not status["embedded"]:
        return (f"no embeddings for {status['files']} files yet: run `kg ingest PATH --embed` "
                "(or `kg context` once with a model installed)")
    model = embedder if embedder is not None else embed.load()
    if isinstance(model, embed.Missing):
        return model.reason
    vector = model.embed([task.text])[0]
    for fresh in (False, True):  # the dimensions are remembered; a refused search asks for them again
        dims = index_dims(store, fresh)
        if dims is not None and dims != model.dims:
            return (f"the stored vectors have {dims} dimensions and the model {model.dims}: run "
                    "`kg ingest PATH --embed` to embed again")
        try:
            return vectors_signal(store, repo, vector, status["repos"])
        except QueryError:
            if fresh:
                raise
    raise AssertionError("unreachable")
