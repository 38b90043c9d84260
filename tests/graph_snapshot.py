"""A repository's subgraph in a canonical, repo-name-free form, so two ingests can be compared for equality."""

from __future__ import annotations

import json

from kg.store import Store

NODES = """
MATCH (n) WHERE n.repo = $repo
RETURN labels(n) AS labels, properties(n) AS props
"""
EDGES = """
MATCH (a)-[r]->(b) WHERE a.repo = $repo OR a:Repo AND a.name = $repo
RETURN type(r) AS type, properties(r) AS props, coalesce(a.key, a.name) AS source, coalesce(b.key, b.name) AS target,
       labels(b) AS target_labels
"""


def snapshot(store: Store, repo: str) -> tuple[list[str], list[str]]:
    prefix = f"{repo}:"

    def canonical(value: object) -> str:
        text = json.dumps(value, sort_keys=True, default=str)
        return text.replace(json.dumps(prefix)[1:-1], "<repo>:")

    nodes = sorted(canonical({"labels": sorted(row["labels"]),
                              "props": {k: v for k, v in row["props"].items() if k != "repo"}})
                   for row in store.read_text(NODES, repo=repo))
    edges = sorted(canonical({**row, "source": row["source"] if row["source"] != repo else "<repo>",
                              "target_labels": sorted(row["target_labels"])})
                   for row in store.read_text(EDGES, repo=repo))
    return nodes, edges
