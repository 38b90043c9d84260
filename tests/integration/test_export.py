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
AMBIGUOUS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "python" / "ambiguous"
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "python" / "pytest_fixtures"


def test_pycg_format_lists_every_function_and_its_callees(store: Store) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    graph = callgraph(store, "shop", "pycg")
    functions = {r["q"] for r in store.read_text(
        "MATCH (s:Symbol {repo: 'shop'}) WHERE s.kind IN ['function', 'method'] RETURN s.qname AS q")}
    assert functions <= set(graph) and "shop.models" in graph
    assert graph["shop.storage.OrderStore.load"] == []  # defined, calls nothing: still a key
    assert graph["shop.models"] == ["dataclasses.dataclass"]  # module-level code belongs to the module
    assert {"shop.pricing.apply_discounts", "<builtin>.list", "<builtin>.list.append"} <= set(
        graph["shop.cart.Cart.checkout"])
    assert "shop.models.Order" not in graph["shop.cart.Cart.checkout"]  # a dataclass: no constructor of ours runs
    assert all(callees == sorted(set(callees)) for callees in graph.values())


def test_json_format_keeps_provenance_and_confidence_filter(store: Store) -> None:
    Ingestor(store, AMBIGUOUS, repo="amb").run()
    graph = callgraph(store, "amb", "json")
    persist = graph["main.persist"]["calls"]
    assert {(c["callee"], c["resolution"]) for c in persist} >= {("models.User.save", "name_only")}
    assert callgraph(store, "amb", "pycg", min_confidence=0.0)["main.persist"] == [
        "models.Invoice.save", "models.Order.save", "models.User.save"]
    # the pycg format leaves guesses out by default; the json format keeps everything unless asked
    assert callgraph(store, "amb", "pycg")["main.persist"] == []
    assert callgraph(store, "amb", "pycg")["main.typed"] == ["models.User.save"]
    assert len(callgraph(store, "amb", "json", min_confidence=0.9)["main.persist"]["calls"]) == 0
    with pytest.raises(InputError, match="no repository named 'nope'"):
        callgraph(store, "nope")


def test_pycg_format_leaves_out_pytests_calls_of_fixtures(store: Store) -> None:
    """A test requesting a fixture does not call it (pytest does): the json export keeps the `fixture` edge, the
    pycg format, which other call-graph tools compare with, does not; what the fixture's value is used for stays."""
    Ingestor(store, FIXTURES, repo="fx").run()
    test_add = callgraph(store, "fx", "json")["tests.test_cart.test_add"]
    calls = {(c["callee"], c["resolution"]) for c in test_add["calls"]}
    assert ("tests.conftest.cart", "fixture") in calls
    pycg = callgraph(store, "fx", "pycg")
    assert "tests.conftest.cart" not in pycg["tests.test_cart.test_add"]
    assert "shop.cart.Cart.add" in pycg["tests.test_cart.test_add"]


def test_pycg_format_follows_pycg_naming(store: Store, tmp_path: Path) -> None:
    """Lambdas are `<lambdaN>` of their scope, builtin methods `<builtin>.type.method`, a class without a constructor
    of the project is no callee, the constructor that runs is."""
    (tmp_path / "main.py").write_text(
        "class Plain:\n    pass\n\n\nclass Base:\n    def __init__(self):\n        pass\n\n\n"
        "class Child(Base):\n    pass\n\n\ndef run(words):\n    key = lambda w: len(w)\n"
        "    Plain()\n    Child()\n    return ', '.join(sorted(words, key=key))\n")
    Ingestor(store, tmp_path, repo="naming").run()
    graph = callgraph(store, "naming", "pycg")
    assert graph["main.run"] == ["<builtin>.sorted", "<builtin>.str.join", "main.Base.__init__",
                                 "main.run.<lambda1>"]
    assert graph["main.run.<lambda1>"] == ["<builtin>.len"]
    assert "main.Plain" in {c["callee"] for c in callgraph(store, "naming", "json")["main.run"]["calls"]}


def test_cli_writes_the_file(store: Store, graph_settings, tmp_path: Path) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    out = tmp_path / "cg.json"
    env = {"PATH": "/usr/bin:/bin", "KG_PROJECT": str(tmp_path), "NEO4J_URI": graph_settings.uri,
           "NEO4J_PASSWORD": graph_settings.password}
    done = subprocess.run([sys.executable, "-m", "kg", "export", "callgraph", "--repo", "shop", "-o", str(out)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["shop.pricing.bulk_discount"] == ["<builtin>.max", "<builtin>.sum"]
