"""Walks along CALLS edges from one symbol, breadth first, one query per step (`queries/reach/step.cypher`).

Each node reached is kept once, at its shortest distance, with the strongest of its shortest chains: the one whose
weakest edge is strongest (ties: the lower call line, then the name of the node one step nearer the start). Steps
make that exact without listing chains: the strongest chain to a node at distance d ends with an edge from a node
at distance d - 1, whose own strongest chain is known when step d runs. A step costs what its frontier's edges
cost, so depth 1 on a hub of django is one small query; the single `ALL SHORTEST … {1,10}` pattern this replaces
searched ten steps whatever depth was asked (Neo4j takes no parameter as a pattern bound) and ran for 20 minutes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from kg.store import Store

Direction = Literal["in", "out"]  # in: towards callers; out: towards callees


@dataclass(frozen=True)
class Reached:
    id: str  # element id of the node reached
    name: str
    depth: int
    weakest: float  # the weakest edge confidence on its strongest shortest chain
    via: str  # element id of the node one step nearer the start on that chain
    edge: str  # element id of the edge between `via` and this node
    line: int | None  # where that call is (observed edges have none)

    def param(self) -> dict[str, object]:
        return asdict(self)


def walk(store: Store, repo: str, qname: str, direction: Direction, depth: int, min_confidence: float,
         evidence: str) -> list[Reached]:
    """Every node within `depth` steps of symbol `qname`, nearest first, strongest first, then by name."""
    start = store.read("reach/start", repo=repo, qname=qname)
    if not start:
        return []
    names = {start[0]["id"]: start[0]["name"] or ""}
    weakest = {start[0]["id"]: 1.0}
    frontier, found = [start[0]["id"]], []
    for step in range(1, depth + 1):
        best: dict[str, Reached] = {}
        for row in store.read("reach/step", frontier=frontier, direction=direction, min_confidence=min_confidence,
                              evidence=evidence):
            if row["id"] in weakest:
                continue
            candidate = Reached(row["id"], row["name"] or "", step, min(weakest[row["via"]], row["confidence"]),
                                row["via"], row["edge"], row["line"])
            current = best.get(row["id"])
            if current is None or _stronger(candidate, current, names):
                best[row["id"]] = candidate
        if not best:
            break
        for node in best.values():
            weakest[node.id], names[node.id] = node.weakest, node.name
        layer = sorted(best.values(), key=lambda r: (-r.weakest, r.name))
        found += layer
        frontier = [r.id for r in layer]
    return found


def _stronger(a: Reached, b: Reached, names: dict[str, str]) -> bool:
    def rank(r: Reached) -> tuple:
        return -r.weakest, r.line is None, r.line or 0, names[r.via]

    return rank(a) < rank(b)
