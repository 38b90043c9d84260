"""`kg cycles`: the shortest import cycle through each module, found with networkx over the repository's import
dependencies: one query reads the edges, and the search runs inside the strongly connected components.

queries/import_cycles.cypher asks the same in Neo4j Browser, but its `ANY SHORTEST` picks one of several equally
short cycles in store order, so two ingests of one tree could list different cycles and lines. Here each choice is
made in name order: the same graph always gives the same rows. It is faster too (django 5.1: 9,152 import edges read
and searched in about a second, where the pattern from every module took 5–9 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:
    from kg.store import Store


def import_graph(store: Store, repo: str) -> nx.DiGraph:
    """The modules of `repo` and the imports between them that run (DEPENDS_ON with an import, not type_only),
    each edge with the first importing line; nodes carry their paths."""
    graph = nx.DiGraph()
    for row in store.read("import_edges", repo=repo):
        graph.add_node(row["source"], path=row["path"])
        graph.add_node(row["target"], path=row["target_path"])
        graph.add_edge(row["source"], row["target"], line=row["line"])
    return graph


def shortest_cycles(graph: nx.DiGraph, max_length: int) -> list[dict[str, Any]]:
    """For each module, the shortest cycle through it of at most `max_length` modules, each cycle listed once (by
    its set of modules) starting at its alphabetically first module; shortest first, then by modules."""
    found: dict[tuple[str, ...], list[str]] = {}
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        successors = {n: sorted(s for s in graph.successors(n) if s in component) for n in component}
        for start in sorted(component):
            ring = _shortest_ring(successors, start, max_length)
            if ring is None:
                continue
            first = ring.index(min(ring))
            ring = ring[first:] + ring[:first]
            key = tuple(sorted(ring))
            if key not in found or ring < found[key]:
                found[key] = ring
    rows = [{"length": len(ring), "modules": ring, "paths": [graph.nodes[m].get("path") for m in ring],
             "lines": [graph.edges[a, b]["line"] for a, b in zip(ring, ring[1:] + ring[:1], strict=True)]}
            for ring in found.values()]
    return sorted(rows, key=lambda r: (r["length"], r["modules"]))


def _shortest_ring(successors: dict[str, list[str]], start: str, max_length: int) -> list[str] | None:
    """The modules of the shortest path from `start` back to itself (≤ max_length edges), breadth first with
    successors in name order, so ties go to the alphabetically first route."""
    parent: dict[str, str | None] = {start: None}
    frontier = [start]
    for _ in range(max_length):
        reached = []
        for node in frontier:
            for nxt in successors[node]:
                if nxt == start:
                    ring = [node]
                    while (up := parent[ring[-1]]) is not None:
                        ring.append(up)
                    return ring[::-1]
                if nxt not in parent:
                    parent[nxt] = node
                    reached.append(nxt)
        frontier = reached
    return None
