"""The schema and the store against the real Neo4j: idempotent schema, named queries, errors in one line."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from kg import queries
from kg.errors import AuthFailed, GraphUnavailable, QueryError
from kg.settings import Settings
from kg.store import Store, Transaction


def symbol(qname: str, doc: str = "") -> dict:
    """A row for the ingest's own symbol write."""
    name = qname.rsplit(".", 1)[-1]
    return {"key": f"r:{qname}", "path": "m.py", "qname": qname, "name": name, "kind": "function",
            "labels": ["Function"], "first_kind": "function", "reset": False, "start_line": 1, "end_line": 2,
            "signature": f"def {name}()", "doc": doc}


def test_schema_is_idempotent_and_complete(store: Store) -> None:
    before = store.read("schema_objects")
    assert store.apply_schema() == len(queries.statements("schema"))
    after = store.read("schema_objects")
    assert sorted(map(str, before)) == sorted(map(str, after))
    names = {row["name"] for row in after}
    assert {"symbol_key", "module_key", "symbol_text", "chunk_text", "symbol_name"} <= names
    constraints = [line for line in queries.statements("schema") if line.startswith("CREATE CONSTRAINT")]
    assert sum(row["object"] == "constraint" for row in after) == len(constraints)


def test_full_text_index_finds_symbols(store: Store) -> None:
    store.write("ingest/symbols_put", [symbol("pkg.mod.send_request", "Send an HTTP request")], repo="r")
    store.write("graph_wipe")  # the test graph is empty again...
    store.write("ingest/symbols_put", [symbol("a.b.parse_url", "Split a URL into parts")], repo="r")
    rows = store.read_text("CALL db.index.fulltext.queryNodes('symbol_text', $q) YIELD node RETURN node.qname AS q",
                           q="url")
    assert [r["q"] for r in rows] == ["a.b.parse_url"]  # ...and holds only what this test wrote


def test_batched_writes_cross_batch_boundaries(store: Store) -> None:
    store.write("ingest/symbols_put", [symbol(f"m.f{i}") for i in range(2500)], repo="r")
    assert store.read("graph_node_counts") == [{"label": "Function", "count": 2500}, {"label": "Symbol", "count": 2500}]


def test_read_refuses_a_write(store: Store) -> None:
    with pytest.raises(QueryError, match="Neo4j refused the query"):
        store.read_text("CREATE (:Symbol {key: 'x'})")
    assert store.read("graph_node_counts") == []


def test_transaction_is_all_or_nothing(store: Store) -> None:
    def work(tx: Transaction) -> None:
        tx.write("ingest/symbols_put", [symbol("one")], repo="r")
        tx.write("ingest/symbols_put", [{**symbol("bad"), "key": None}], repo="r")

    with pytest.raises(QueryError):
        store.transaction(work)
    assert store.read("graph_node_counts") == []


def test_wrong_password_and_unreachable_uri(graph_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "not-the-password")
    with pytest.raises(AuthFailed, match="check NEO4J_USER and NEO4J_PASSWORD"):
        Store.connect(graph_settings)
    nowhere = dataclasses.replace(graph_settings, uri="bolt://127.0.0.1:9", uri_configured=True)
    with pytest.raises(GraphUnavailable, match="cannot reach Neo4j at bolt://127.0.0.1:9: check NEO4J_URI"):
        Store.connect(nowhere)


def test_cli_error_is_one_line_without_traceback(tmp_path) -> None:
    env = {"PATH": "/usr/bin:/bin", "NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_PASSWORD": "x",
           "KG_PROJECT": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "kg", "status"], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.strip() == "error: cannot reach Neo4j at bolt://127.0.0.1:9: check NEO4J_URI"


def test_applying_the_schema_recreates_an_index_that_was_dropped(store: Store) -> None:
    """apply_schema sends only the statements whose index is missing: one that went is still put back."""
    store.apply_schema()
    with store._session("WRITE") as session:  # schema commands cannot run inside a named write's transaction
        session.run("DROP INDEX module_words").consume()
    assert "module_words" not in {row["name"] for row in store.read("schema_objects")}
    store.apply_schema()
    assert "module_words" in {row["name"] for row in store.read("schema_objects")}
