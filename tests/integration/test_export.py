"""`kg export callgraph` on the real graph of the bundled example."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import InputError
from kg.export import callgraph
from kg.store import Store

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


def test_pycg_format_lists_every_function_and_its_callees(store: Store) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    graph = callgraph(store, "shop", "pycg")
    functions = {r["q"] for r in store.read_text(
        "MATCH (s:Symbol {repo: 'shop'}) WHERE s.kind IN ['function', 'method'] RETURN s.qname AS q")}
    assert functions <= set(graph) and "shop.models" in graph
    assert graph["shop.storage.OrderStore.load"] == []  # defined, calls nothing: still a key
    assert graph["shop.models"] == ["dataclasses.dataclass"]  # module-level code belongs to the module
    assert {"shop.pricing.apply_discounts", "shop.models.Order", "<builtin>.list"} <= set(
        graph["shop.cart.Cart.checkout"])
    assert all(callees == sorted(set(callees)) for callees in graph.values())


def test_json_format_keeps_provenance_and_confidence_filter(store: Store) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    graph = callgraph(store, "shop", "json")
    subtotal = graph["shop.models.Order.subtotal_cents"]["calls"]
    assert {(c["callee"], c["resolution"]) for c in subtotal} >= {("shop.models.LineItem.total_cents", "name_only")}
    sure = callgraph(store, "shop", "pycg", min_confidence=0.9)
    assert "shop.models.LineItem.total_cents" not in sure["shop.models.Order.subtotal_cents"]
    with pytest.raises(InputError, match="no repository named 'nope'"):
        callgraph(store, "nope")


def test_cli_writes_the_file(store: Store, graph_settings, tmp_path: Path) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    out = tmp_path / "cg.json"
    env = {"PATH": "/usr/bin:/bin", "KG_PROJECT": str(tmp_path), "NEO4J_URI": graph_settings.uri,
           "NEO4J_PASSWORD": graph_settings.password}
    done = subprocess.run([sys.executable, "-m", "kg", "export", "callgraph", "--repo", "shop", "-o", str(out)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["shop.pricing.bulk_discount"] == ["<builtin>.max", "<builtin>.sum"]
