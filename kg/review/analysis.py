"""What the dependency graph says, computed with networkx from the rows of queries/review/: import cycles and the
edges to cut, hotspots and why each is hot, and the package view the diagram draws.

Cycles are the strongly connected components of the import dependencies (DEPENDS_ON edges with IMPORTS among their
kinds), so a cycle that mixes `import b` and `from b import x` is found like any other. The edges to cut are a
minimal feedback arc set: the Eades–Lin–Smyth ordering (networkx has no feedback arc set) followed by putting back
every cut edge whose return closes no cycle, heaviest first, so the suggestion cuts few and light dependencies and
none it does not need to.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Iterable
from typing import Any

import networkx as nx

BETWEENNESS_SAMPLE = 300  # above this many modules betweenness is estimated from this many sources (seeded)
HOT_PERCENTILE = 0.9  # a metric at or above this percentile is a reason a module is hot


def dependency_graph(modules: Iterable[dict[str, Any]], dependencies: Iterable[dict[str, Any]]) -> nx.DiGraph:
    """Modules (rows of review/modules) as nodes, dependencies (rows of review/dependencies) as edges."""
    graph = nx.DiGraph()
    for m in modules:
        graph.add_node(m["module"], **m)
    for d in dependencies:
        if d["source"] in graph and d["target"] in graph:
            graph.add_edge(d["source"], d["target"], **d)
    return graph


def import_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """The import dependencies only: what cycles and rules are about. An import made only under `if TYPE_CHECKING:`
    (type_only) never runs, so it closes no cycle."""
    return graph.edge_subgraph([(u, v) for u, v, d in graph.edges(data=True)
                                if "IMPORTS" in d["kinds"] and not d.get("type_only")]).copy()


# ── cycles ────────────────────────────────────────────────────────────────────────────────────────────────────


def cycles(imports: nx.DiGraph) -> list[dict[str, Any]]:
    """Each group of modules that import each other in a circle, largest first, with the edges to cut."""
    groups = []
    for component in nx.strongly_connected_components(imports):
        if len(component) < 2:
            continue
        sub = imports.subgraph(component)
        cut = feedback_arcs(sub)
        groups.append({
            "modules": sorted(component),
            "edges": [_edge(sub, u, v) for u, v in sorted(sub.edges)],
            "cut": [{**_edge(sub, u, v), "closes": [u, *nx.shortest_path(sub, v, u)]} for u, v in cut],
        })
    return sorted(groups, key=lambda g: (-len(g["modules"]), g["modules"]))


def _edge(graph: nx.DiGraph, u: str, v: str) -> dict[str, Any]:
    data = graph.edges[u, v]
    return {"source": u, "target": v, "path": data.get("path"), "line": data.get("line"),
            "weight": data.get("weight", 1), "deferred": bool(data.get("deferred"))}


def feedback_arcs(graph: nx.DiGraph) -> list[tuple[str, str]]:
    """A minimal set of edges whose removal leaves no cycle, preferring light edges (deterministic). A deferred
    import (inside a function) weighs half: it is where such a cycle is usually already broken at import time."""
    weight = {(u, v): (d.get("weight") or 1) * (0.5 if d.get("deferred") else 1) for u, v, d in graph.edges(data=True)}
    rest = nx.DiGraph(graph.edges)
    left: list[str] = []
    right: list[str] = []
    while rest:
        peeled = True
        while peeled:
            sinks = sorted(n for n in rest if rest.out_degree(n) == 0)
            sources = sorted(n for n in rest if rest.in_degree(n) == 0 and rest.out_degree(n) > 0)
            right.extend(sinks)
            left.extend(sources)
            rest.remove_nodes_from(sinks + sources)
            peeled = bool(sinks or sources)
        if rest:
            def balance(n: str) -> tuple[int, str]:
                out = sum(weight[n, s] for s in rest.successors(n))
                into = sum(weight[p, n] for p in rest.predecessors(n))
                return out - into, n
            chosen = max(rest, key=balance)
            left.append(chosen)
            rest.remove_node(chosen)
    position = {n: i for i, n in enumerate(left + right[::-1])}
    backward = [(u, v) for u, v in graph.edges if position[u] > position[v]]
    acyclic = nx.DiGraph(graph.edges)
    acyclic.remove_edges_from(backward)
    cut = []
    for u, v in sorted(backward, key=lambda e: (-weight[e], e)):
        if nx.has_path(acyclic, v, u):
            cut.append((u, v))
        else:
            acyclic.add_edge(u, v)
    return sorted(cut)


def cyclic_edges(groups: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Every import dependency that lies on a cycle: what a baseline compares."""
    return {(e["source"], e["target"]) for g in groups for e in g["edges"]}


# ── hotspots ──────────────────────────────────────────────────────────────────────────────────────────────────

_REASONS = {
    "pagerank": "much depends on it, directly or not (PageRank top {top}%)",
    "betweenness": "on many dependency paths (betweenness top {top}%)",
    "fan_in": "{value:,} modules depend on it",
    "fan_out": "depends on {value:,} modules",
    "loc": "{value:,} lines",
    "churn": "changed in {value:,} of the last {commits:,} commits",
}


def hotspots(graph: nx.DiGraph, churn: dict[str, int] | None, limit: int,
             flagged: dict[str, list[str]] | None = None, commits: int = 0) -> list[dict[str, Any]]:
    """Modules ranked by the mean percentile of their metrics, each with why it is hot.

    The metrics: PageRank (weighted by how many imports and calls make up each dependency) and betweenness on the
    dependency graph, fan-in and fan-out, lines, and git churn (over the last `commits`) when there is history.
    `flagged` adds reasons that are not metrics (in a cycle, breaks a rule)."""
    if not graph:
        return []
    metrics: dict[str, dict[str, float]] = {
        "pagerank": pagerank(graph),
        "betweenness": nx.betweenness_centrality(
            graph, k=BETWEENNESS_SAMPLE if len(graph) > BETWEENNESS_SAMPLE else None, seed=0),
        "fan_in": {n: graph.in_degree(n) for n in graph},
        "fan_out": {n: graph.out_degree(n) for n in graph},
        "loc": {n: graph.nodes[n].get("loc") or 0 for n in graph},
    }
    if churn is not None:
        metrics["churn"] = {n: churn.get(graph.nodes[n]["path"], 0) for n in graph}
    percentiles = {name: _percentiles(values) for name, values in metrics.items()}
    rows = []
    for n in graph:
        score = sum(percentiles[name][n] for name in metrics) / len(metrics)
        why = [_REASONS[name].format(value=metrics[name][n], commits=commits,
                                     top=max(1, math.ceil((1 - percentiles[name][n]) * 100)))
               for name in metrics if percentiles[name][n] >= HOT_PERCENTILE and metrics[name][n] > 0]
        why += (flagged or {}).get(n, [])
        node = graph.nodes[n]
        rows.append({"module": n, "path": node["path"], "package": node["package"], "score": round(score, 3),
                     "pagerank": round(metrics["pagerank"][n], 5), "betweenness": round(metrics["betweenness"][n], 5),
                     "fan_in": metrics["fan_in"][n], "fan_out": metrics["fan_out"][n], "loc": metrics["loc"][n],
                     "churn": metrics["churn"][n] if churn is not None else None, "why": why})
    rows.sort(key=lambda r: (-r["score"], r["module"]))
    return rows[:limit]


def pagerank(graph: nx.DiGraph, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100) -> dict[str, float]:
    """networkx's PageRank (damping 0.85, edges weighted, a node without dependencies spreads its rank evenly),
    by power iteration in plain Python. nx.pagerank needs scipy, and numpy with it would slow every kg command: the
    neo4j driver imports numpy whenever it is installed (0.1–0.3 s per process)."""
    count = len(graph)
    out = {u: sum(w for _, _, w in graph.out_edges(u, data="weight", default=1)) for u in graph}
    sinks = [u for u in graph if not out[u]]
    rank = dict.fromkeys(graph, 1.0 / count)
    for _ in range(max_iter):
        previous = rank
        base = (1.0 - alpha) / count + alpha * sum(previous[u] for u in sinks) / count
        rank = dict.fromkeys(graph, base)
        for u, v, w in graph.edges(data="weight", default=1):
            rank[v] += alpha * previous[u] * w / out[u]
        if sum(abs(rank[n] - previous[n]) for n in graph) < count * tol:
            break
    return rank


def _percentiles(values: dict[str, float]) -> dict[str, float]:
    """Each value's share of values strictly below it, in [0, 1): a value most modules share ranks low, so a metric
    that does not tell modules apart (two commits of history that touched everything) makes nobody hot."""
    ordered = sorted(values.values())
    total = len(ordered)
    below: dict[float, int] = {}
    for i, value in enumerate(ordered):
        below.setdefault(value, i)
    return {n: below[v] / total for n, v in values.items()}


# ── the diagram's nodes: modules, folded into folders until few enough remain ───────────────────────────────


def _parent(path: str) -> str:
    return posixpath.dirname(path) or "."


REST = "/*"  # the node `a/b/*` shows the modules directly in folder a/b (its subfolders are shown apart)


def collapse(weights: dict[str, int], max_nodes: int) -> dict[str, str]:
    """module path → the node that shows it: the module itself, a folder it lies in (`a/b`) or the modules
    directly in a folder (`a/b/*`). It starts from the top-level entries and keeps opening the heaviest node (in
    lines) into its subfolders and files while at most `max_nodes` remain: a small repository is drawn module by
    module, a large one folder by folder, with detail where most of the code is."""
    paths = sorted(weights)

    def inside(node: str, path: str) -> bool:
        if node.endswith(REST):
            return _parent(path) == node[:-len(REST)]
        return path == node or node == "." or path.startswith(node + "/")

    def opened(node: str) -> list[str]:
        if node.endswith(REST):
            return [p for p in paths if inside(node, p)]
        below = [p for p in paths if inside(node, p) and p != node]
        prefix = "" if node == "." else node + "/"
        files = [p for p in below if _parent(p) == (node if node != "." else ".")]
        folders = sorted({prefix + p[len(prefix):].split("/", 1)[0] for p in below if p not in files})
        if not folders:
            return files
        return folders + ([node + REST] if len(files) > 1 else files)

    current = ["."]
    while True:
        weight = {n: sum(weights[p] or 0 for p in paths if inside(n, p)) for n in current}
        for node in sorted(current, key=lambda n: (-weight[n], n)):
            children = opened(node)
            if children in ([], [node]) or len(current) - 1 + len(children) > max_nodes and len(current) > 1:
                continue
            current = [n for n in current if n != node] + children
            break
        else:
            break
    return {p: next(n for n in current if inside(n, p)) for p in paths}


def package_graph(graph: nx.DiGraph, shown: dict[str, str], cycles: list[dict[str, Any]],
                  violating: set[tuple[str, str | None]]) -> nx.DiGraph:
    """The module graph folded onto the shown nodes (`collapse`): each node's modules and lines, each edge's count
    of module dependencies. Nodes holding a module of an import cycle are `cyclic`; edges carrying a dependency the
    cycles section suggests cutting are `cut`; `violating` marks what carries a broken rule (`violating` holds
    (source, target) dependencies, or (module, None) for a module over a limit)."""
    in_cycle = {m for g in cycles for m in g["modules"]}
    cut = {(e["source"], e["target"]) for g in cycles for e in g["cut"]}
    folded = nx.DiGraph()
    for n, data in graph.nodes(data=True):
        node = shown[data["path"]]
        if node not in folded:
            folded.add_node(node, modules=0, loc=0, folder=node != data["path"], package=data["package"],
                            cyclic=False, violating=False)
        attrs = folded.nodes[node]
        attrs["modules"] += 1
        attrs["loc"] += data.get("loc") or 0
        attrs["cyclic"] |= n in in_cycle
        if attrs["folder"]:
            attrs["package"] = node.removesuffix(REST)
    for u, v in violating:
        if v is None and u in graph:  # a module over a limit
            folded.nodes[shown[graph.nodes[u]["path"]]]["violating"] = True
    for u, v in graph.edges:
        a, b = shown[graph.nodes[u]["path"]], shown[graph.nodes[v]["path"]]
        breaks = (u, v) in violating
        folded.nodes[a]["violating"] |= breaks
        if a == b:
            continue
        if not folded.has_edge(a, b):
            folded.add_edge(a, b, weight=0, cut=False, violating=False)
        edge = folded.edges[a, b]
        edge["weight"] += 1
        edge["cut"] |= (u, v) in cut
        edge["violating"] |= breaks
    return folded
