"""kg.navigate.cycles on small import graphs: the shortest cycle through each module, each listed once, and the same
answer whatever order the graph's edges arrived in (the Cypher's ANY SHORTEST picks ties in store order)."""

from __future__ import annotations

import itertools

import networkx as nx

from kg.navigate.cycles import shortest_cycles


def graph(edges: list[tuple[str, str]]) -> nx.DiGraph:
    built = nx.DiGraph()
    for line, (a, b) in enumerate(edges, 1):
        built.add_edge(a, b, line=line)
        built.nodes[a]["path"] = f"{a}.py"
        built.nodes[b]["path"] = f"{b}.py"
    return built


def rings(edges: list[tuple[str, str]], max_length: int = 4) -> list[list[str]]:
    return [row["modules"] for row in shortest_cycles(graph(edges), max_length)]


def test_each_module_gets_its_shortest_cycle_listed_once_from_its_first_module() -> None:
    # a↔b is the shortest through a and b; c's shortest is c→a→b→c; d is on no cycle of ≤ 4 modules
    edges = [("a", "b"), ("b", "a"), ("b", "c"), ("c", "a"), ("a", "d")]
    assert rings(edges) == [["a", "b"], ["a", "b", "c"]]
    rows = shortest_cycles(graph(edges), 4)
    assert rows[1]["lines"] == [1, 3, 4]  # the lines of a→b, b→c and c→a, in the order of the ring
    assert rows[1]["paths"] == ["a.py", "b.py", "c.py"]


def test_a_cycle_longer_than_the_limit_is_left_out() -> None:
    ring = [("m1", "m2"), ("m2", "m3"), ("m3", "m4"), ("m4", "m5"), ("m5", "m1")]
    assert rings(ring, 4) == [] and rings(ring, 5) == [["m1", "m2", "m3", "m4", "m5"]]


def test_ties_go_the_same_way_whatever_order_the_edges_came_in() -> None:
    # through d two cycles of three are equally short (via b, via c); a, b, c each have one of them
    # and x, y, z form a ring both ways round, the same module set twice
    edges = [("a", "b"), ("b", "d"), ("d", "a"), ("a", "c"), ("c", "d"),
             ("x", "y"), ("y", "z"), ("z", "x"), ("x", "z"), ("z", "y"), ("y", "x")]
    answers = set()
    for order in itertools.islice(itertools.permutations(edges), 0, 40_000, 997):
        built = nx.DiGraph()
        for a, b in order:
            built.add_edge(a, b, line=edges.index((a, b)) + 1)
            built.nodes[a]["path"] = built.nodes[b]["path"] = ""
        answers.add(repr([(r["modules"], r["lines"]) for r in shortest_cycles(built, 4)]))
    assert len(answers) == 1
    # z→x→z and z→y→z tie for z, y→x→y and y→z→y for y: x comes first by name, so {y, z} is no one's shortest
    assert rings(edges) == [["x", "y"], ["x", "z"], ["a", "b", "d"], ["a", "c", "d"]]
