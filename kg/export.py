"""Exports of the graph in formats other tools read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from kg.errors import InputError

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

CallgraphFormat = Literal["pycg", "json"]


def callgraph(store: Store, repo: str, fmt: CallgraphFormat = "pycg", min_confidence: float = 0.0) -> dict[str, Any]:
    """The call graph of `repo`.

    pycg: `{"pkg.mod.Class.method": ["pkg.mod.helper", "<builtin>.len"], ...}` — the adjacency list PyCG and its
    successors print, every module, class, function and method a key even without callees, callees sorted and
    unique. json: the same keys, each call with its line, resolution and confidence.
    """
    rows = store.read("export/callgraph", repo=repo, min_confidence=min_confidence)
    if not rows:
        raise InputError(f"no repository named {repo!r} in the graph: ingest it first (`kg ingest PATH --repo {repo}`)")
    graph: dict[str, Any] = {}
    for row in sorted(rows, key=lambda r: r["caller"]):
        calls = [c for c in row["calls"] if c["callee"] is not None]
        if fmt == "pycg":
            graph[row["caller"]] = sorted({c["callee"] for c in calls} | set(graph.get(row["caller"], [])))
        else:
            graph[row["caller"]] = {"kind": row["kind"], "calls": sorted(calls, key=lambda c: (c["line"], c["callee"]))}
    return graph
