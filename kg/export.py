"""Exports of the graph in formats other tools read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from kg.errors import InputError

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

CallgraphFormat = Literal["pycg", "json"]


def callgraph(store: Store, repo: str, fmt: CallgraphFormat = "pycg", min_confidence: float = 0.0,
              evidence: str = "static") -> dict[str, Any]:
    """The call graph of `repo`, from static analysis (`evidence` static, the default), from the calls `kg observe`
    saw (observed) or both (all).

    pycg: `{"pkg.mod.Class.method": ["pkg.mod.helper", "<builtin>.len"], ...}` — the adjacency list PyCG and its
    successors print, every module, class, function and method a key even without callees, callees sorted and
    unique; an observed call made through library frames (a test → werkzeug → `Flask.__call__`) is no direct call
    and stays out of it. json: the same keys, each call with its line, resolution and confidence (observed calls:
    `via` and `count`).
    """
    if evidence not in ("static", "observed", "all"):
        raise InputError(f"evidence must be static, observed or all, not {evidence!r}")
    rows = store.read("export/callgraph", repo=repo, min_confidence=min_confidence, evidence=evidence)
    if not rows:
        raise InputError(f"no repository named {repo!r} in the graph: ingest it first (`kg ingest PATH --repo {repo}`)")
    graph: dict[str, Any] = {}
    for row in sorted(rows, key=lambda r: r["caller"]):
        calls = [{k: v for k, v in c.items() if v is not None} for c in row["calls"] if c["callee"] is not None]
        if fmt == "pycg":
            direct = {c["callee"] for c in calls if c.get("via") != "library"}
            graph[row["caller"]] = sorted(direct | set(graph.get(row["caller"], [])))
        else:
            graph[row["caller"]] = {"kind": row["kind"],
                                    "calls": sorted(calls, key=lambda c: (c.get("line") or 0, c["callee"]))}
    return graph
