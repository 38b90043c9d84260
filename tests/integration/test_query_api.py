"""The HTTP Query API reader (kg.query_api) against the real local server: the same rows as the driver for every
named read, writes refused, driver-only values handed to the driver, kg's one-line errors, and a CLI answer that
never imports the driver."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import AuthFailed, GraphUnavailable, InputError, QueryError
from kg.navigate.catalog import catalog, describe
from kg.query_api import QueryApiReader
from kg.settings import Settings
from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
NAV = REPO_ROOT / "tests" / "fixtures" / "navigate"


@pytest.fixture(scope="module")
def shop(session_store: Store) -> Store:
    session_store.write("graph_wipe")
    Ingestor(session_store, TINYSHOP, repo="shop").run()
    Ingestor(session_store, NAV, repo="nav").run()
    return session_store


@pytest.fixture
def reader(graph_settings: Settings) -> QueryApiReader:
    if graph_settings.uri_configured:
        pytest.skip("the Query API reader reads kg's local server only")
    with QueryApiReader(graph_settings, fallback=lambda: Store.connect(graph_settings)) as reader:
        yield reader


READS = [info.name for info in catalog()] + ["export/callgraph", "graph_node_counts", "graph_edge_counts",
                                             "ingest/file_hashes", "ingest/files_pointing_at"]


@pytest.mark.parametrize("name", READS)
def test_every_named_read_gives_the_driver_rows(shop: Store, reader: QueryApiReader, name: str) -> None:
    """Each query file with its own `:param` example values (tinyshop's names, with the repo `shop` and again `nav`):
    the same rows in the same order. Queries that return paths are answered through the driver (see the next test)."""
    examples = describe(name).examples
    params = {key: shop.read_text(f"RETURN {literal} AS v")[0]["v"] for key, literal in examples.items()}
    variants = [{**params, "repo": "shop"}, {**params, "repo": "nav"}] if "repo" in params else [params]
    answers = []
    for values in variants:
        expected = shop.read(name, **values)
        got = reader.read(name, **values)
        assert got == expected
        assert [list(row) for row in got] == [list(row) for row in expected]  # the columns in the query's order
        # ints stay ints and floats floats (1 == 1.0 in Python); the keys of a map inside a row are a Cypher map's,
        # unordered, and the two transports list them in different orders
        assert json.dumps(got, sort_keys=True, default=str) == json.dumps(expected, sort_keys=True, default=str)
        answers.append(got)
    if name in ("callers", "impact", "hotspots", "graph_node_counts"):
        assert answers[0], f"{name} should find rows in tinyshop"  # the comparison above compared something


def test_writes_are_refused_by_the_server(shop: Store, reader: QueryApiReader) -> None:
    with pytest.raises(QueryError, match="refused.*(read access mode|AccessMode)"):
        reader.read("ingest/repo_node_delete", repo="shop")
    with pytest.raises(QueryError, match="read access mode"):
        reader.read_text("CREATE (:Intruder) RETURN 1 AS one")
    assert shop.read_text("MATCH (r:Repo {name: 'shop'}) RETURN count(r) AS n")[0]["n"] == 1
    assert shop.read_text("MATCH (n:Intruder) RETURN count(n) AS n")[0]["n"] == 0


def test_values_only_the_driver_gives_are_read_through_it(shop: Store, graph_settings: Settings) -> None:
    """Dates, relationships and paths are the driver's own types: the reader does not imitate them, it asks the
    driver, so the answer is the driver's. Plain values, maps and nodes it decodes itself."""
    opened: list[Store] = []

    def driver() -> Store:
        opened.append(Store.connect(graph_settings))
        return opened[-1]

    text = "MATCH (m:Module {repo: 'shop'})-[r:DEFINES]->(s) RETURN m, r, date('2024-02-29') AS d LIMIT 1"
    plain = "RETURN 1 AS i, 1.0 AS f, 'x' AS s, [1, {a: null}] AS l, true AS b, 0.0 / 0.0 AS nan"
    with QueryApiReader(graph_settings, fallback=driver) as reader:
        first = reader.read_text(plain)[0]
        assert not opened
        assert [type(first[k]) for k in ("i", "f", "s", "l", "b")] == [int, float, str, list, bool]
        assert first["nan"] != first["nan"]
        node = reader.read_text("MATCH (m:Module {repo: 'shop', path: 'shop/cart.py'}) RETURN m")[0]["m"]
        assert node == shop.read_text("MATCH (m:Module {repo: 'shop', path: 'shop/cart.py'}) RETURN m")[0]["m"]
        assert not opened
        assert reader.read_text(text) == shop.read_text(text)
        assert len(opened) == 1


def test_errors_are_kg_errors(shop: Store, graph_settings: Settings, reader: QueryApiReader,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(QueryError, match="Neo4j refused the query"):
        reader.read_text("MATCH (n RETURN n")
    with pytest.raises(InputError, match="64 bits"):
        reader.read_text("RETURN $x AS x", x=2**70)
    with pytest.raises(InputError, match="not valid text"):
        reader.read_text("RETURN $x AS x", x="\ud800")
    monkeypatch.setenv("NEO4J_PASSWORD", "not-the-password")
    with pytest.raises(AuthFailed, match="NEO4J_PASSWORD"), QueryApiReader(graph_settings) as bad:
        bad.read("repos")


def test_nothing_listening_is_one_line_or_starts_the_server(graph_settings: Settings) -> None:
    closed = dataclasses.replace(graph_settings, http_port=_free_port())
    with pytest.raises(GraphUnavailable, match="cannot reach Neo4j.*kg server start"), QueryApiReader(closed) as r:
        r.read("repos")
    started: list[bool] = []
    with pytest.raises(GraphUnavailable), QueryApiReader(closed, on_refused=lambda: started.append(True)) as r:
        r.read("repos")  # asked to start once; still refused, so it gives up with the same line
    assert started == [True]


def test_a_listener_that_never_answers_is_one_line_not_a_hang(graph_settings: Settings,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Something other than Neo4j on the HTTP port (a real socket that accepts and stays silent): the read gives up
    after READ_TIMEOUT (shortened here) with kg's one line, instead of waiting forever."""
    import socket

    from kg import query_api

    monkeypatch.setattr(query_api, "READ_TIMEOUT", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        quiet = dataclasses.replace(graph_settings, http_port=silent.getsockname()[1])
        with pytest.raises(GraphUnavailable, match=r"no answer from .* in 1 s"), QueryApiReader(quiet) as r:
            r.read("repos")


def test_a_cli_answer_never_imports_the_driver(shop: Store, graph_settings: Settings) -> None:
    """`kg callers` on kg's local server answers over HTTP: the neo4j driver is never imported (its import alone
    costs more CPU than the whole answer)."""
    if graph_settings.uri_configured:
        pytest.skip("the Query API reader reads kg's local server only")
    env = {k: v for k, v in os.environ.items() if k not in ("NEO4J_URI", "NEO4J_PASSWORD")}
    env.update(KG_BOLT_PORT=str(graph_settings.bolt_port), KG_HTTP_PORT=str(graph_settings.http_port),
               KG_DATA_DIR=str(graph_settings.data_dir), KG_PROJECT=str(REPO_ROOT))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "kg", "callers", "Cart.checkout", "--repo", "shop",
                           "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["total"] == 2
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "kg.query_api" in imported
    assert not {m for m in imported if m.split(".")[0] in ("neo4j", "yaml", "tenacity")}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
