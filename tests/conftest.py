"""Shared fixtures: one real Neo4j for the session and a clean graph for every test that asks for one.

The server is the one NEO4J_URI points at when set (with NEO4J_PASSWORD); otherwise kg's own local server on the
test data folder below, started by kg's launcher if it is not already running (`.ci/run` starts it beforehand).
Its ports: KG_TEST_BOLT_PORT / KG_TEST_HTTP_PORT when set, else those it already runs on, else free ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg import settings as kg_settings
from kg.server import local
from kg.settings import Settings
from kg.store import Store
from tests.ports import free_ports

REPO = Path(__file__).resolve().parents[1]
TEST_DATA_DIR = Path(os.environ.get("KG_TEST_DATA_DIR", REPO / ".kg" / "test-neo4j"))


def test_server_settings() -> Settings:
    overrides: dict[str, object] = {"data_dir": str(TEST_DATA_DIR)}
    if os.environ.get("KG_TEST_BOLT_PORT") and os.environ.get("KG_TEST_HTTP_PORT"):
        overrides |= {"bolt_port": os.environ["KG_TEST_BOLT_PORT"], "http_port": os.environ["KG_TEST_HTTP_PORT"]}
    settings = kg_settings.load(overrides, cwd=REPO)
    if "bolt_port" in overrides or settings.uri_configured or local.is_running(settings):
        return settings  # a running server's own ports come with the settings
    bolt, http = free_ports(2)
    return kg_settings.load({**overrides, "bolt_port": bolt, "http_port": http}, cwd=REPO)


@pytest.fixture(scope="session")
def graph_settings() -> Iterator[Settings]:
    settings = test_server_settings()
    started_here = False
    if not settings.uri_configured and not local.is_running(settings):
        local.start(settings)
        started_here = True
    yield settings
    if started_here and not os.environ.get("KG_TEST_KEEP_SERVER"):
        local.stop(settings)


@pytest.fixture(scope="session")
def session_store(graph_settings: Settings) -> Iterator[Store]:
    with Store.connect(graph_settings) as store:
        store.apply_schema()
        yield store


@pytest.fixture
def store(session_store: Store) -> Store:
    """The session's store on an emptied graph (Community has one user database, so tests share it in turn)."""
    session_store.write("graph_wipe")
    return session_store
