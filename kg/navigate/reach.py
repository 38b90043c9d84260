"""Walks along the graph's dependency edges, breadth first, one query per step (`queries/reach/step.cypher`).

Each node reached is kept once, at its shortest distance, with the strongest of its shortest chains: the one whose
weakest edge is strongest (ties: the lower line, then the name of the node one step nearer the start). Steps make
that exact without listing chains: the strongest chain to a node at distance d ends with an edge from a node at
distance d - 1, whose own strongest chain is known when step d runs. A step costs what its frontier's edges cost,
so depth 1 on a hub of django is one small query; the single `ALL SHORTEST … {1,10}` pattern this replaces searched
ten steps whatever depth was asked (Neo4j takes no parameter as a pattern bound) and ran for 20 minutes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from kg.store import Store

Direction = Literal["in", "out"]  # in: towards callers, importers, subclasses; out: towards what they use


@dataclass(frozen=True)
class Reached:
    id: str  # element id of the node reached
    name: str
    depth: int
    weakest: float  # the weakest edge confidence on its strongest shortest chain
    via: str  # element id of the node one step nearer the start on that chain
    edge: str  # element id of the edge between `via` and this node
    line: int | None  # where that edge is written (observed edges have none)
    types: tuple[str, ...]  # the edge types of the chain, from the start to this node
    reaches: str  # the start the chain leads to
    observed: int  # how many of the chain's edges were observed (`kg observe`) rather than resolved by ingest
    stale: bool  # an observed edge on the chain is older than a file at its ends

    @property
    def evidence(self) -> str:
        kind = "static" if not self.observed else "observed" if self.observed == self.depth else "static+observed"
        return kind + (" (stale)" if self.stale else "")

    def param(self) -> dict[str, Any]:
        return asdict(self) | {"evidence": self.evidence}


def walk(store: Store, repo: str, starts: list[dict[str, Any]], direction: Direction, depth: int,
         min_confidence: float, evidence: str, types: tuple[str, ...] = ("CALLS",)) -> list[Reached]:
    """Every node within `depth` steps of the `starts`, nearest first, strongest first, then by name; the starts
    themselves are never in the answer. A start is a row with `id` and `name`, and optionally the `depth` and the
    chain strength (`weakest`) it was itself reached at by an earlier walk (it then starts that many steps out)."""
    names = {s["id"]: s["name"] or "" for s in starts}
    chains: dict[str, Reached | None] = {s["id"]: None for s in starts}
    strength = {s["id"]: s.get("weakest", 1.0) for s in starts}
    waiting = sorted(starts, key=lambda s: s.get("depth", 0))
    frontier: list[str] = []
    found: list[Reached] = []
    for step in range(1, depth + 1):
        while waiting and waiting[0].get("depth", 0) < step:
            frontier.append(waiting.pop(0)["id"])
        if not frontier:
            if not waiting:
                break
            continue  # the next starts begin further out
        best: dict[str, Reached] = {}
        for row in store.read("reach/step", repo=repo, frontier=frontier, direction=direction, types=list(types),
                              min_confidence=min_confidence, evidence=evidence):
            if row["id"] in chains:
                continue
            before = chains[row["via"]]
            candidate = Reached(
                row["id"], row["name"] or "", step, min(before.weakest if before else strength[row["via"]],
                                                        row["confidence"]),
                row["via"], row["edge"], row["line"], (*(before.types if before else ()), row["type"]),
                before.reaches if before else names[row["via"]], (before.observed if before else 0) + row["observed"],
                bool(row["stale"]) or (before.stale if before else False))
            current = best.get(row["id"])
            if current is None or _rank(candidate, names) < _rank(current, names):
                best[row["id"]] = candidate
        layer = sorted(best.values(), key=lambda r: (-r.weakest, r.name))
        for node in layer:
            chains[node.id], names[node.id] = node, node.name
        found += layer
        frontier = [r.id for r in layer]
    return found


def _rank(r: Reached, names: dict[str, str]) -> tuple:
    return -r.weakest, r.line is None, r.line or 0, names[r.via]
