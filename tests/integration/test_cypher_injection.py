"""Names, repositories and search text that are Cypher (or Lucene) reach Neo4j only as parameter values: every
navigation question answers "not found" (or fuzzy matches) and the graph is unchanged. Real Neo4j, tinyshop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import KgError
from kg.navigate import answers
from kg.settings import Settings
from kg.store import Store

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"
PAYLOADS = [
    "x' }) DETACH DELETE n //",
    'x"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "shop.cart` {x:1}) DETACH DELETE n //",
    "*) OR (qname:* AND NOT x",  # Lucene syntax in a full-text search
    "$repo",
    "\\u0027) MATCH (n) DETACH DELETE n //",
]


def counts(store: Store) -> tuple:
    return tuple(map(str, (store.read("graph_node_counts"), store.read("graph_edge_counts"))))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_are_values_not_cypher(store: Store, payload: str) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    before = counts(store)
    for ask in (lambda: answers.find(store, payload, "shop"), lambda: answers.callers(store, payload, "shop"),
                lambda: answers.impact(store, [payload], "shop"), lambda: answers.tests_for(store, [payload], "shop"),
                lambda: answers.callers(store, "Cart.checkout", payload),
                lambda: answers.run_query(store, "callers", {"repo": payload, "qname": payload, "depth": 1,
                                                             "min_confidence": 0})):
        try:
            ask()
        except KgError as e:  # "no symbol named …" is the expected answer; a Cypher syntax error would be a leak
            assert "Invalid input" not in str(e) and "SyntaxError" not in str(e), str(e)[:300]
    assert counts(store) == before


def test_payloads_through_the_cli(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    before = counts(store)
    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password, "PATH": "/usr/bin:/bin"}
    for payload in PAYLOADS[:2]:
        done = subprocess.run([sys.executable, "-m", "kg", "callers", payload, "--repo", "shop"], capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 1 and "no symbol or module named" in done.stderr and "Traceback" not in done.stderr
    assert counts(store) == before
