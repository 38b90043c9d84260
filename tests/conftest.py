"""Shared fixtures: one real Neo4j for the session and a clean graph for every test that asks for one.

The server is the one NEO4J_URI points at when set (with NEO4J_PASSWORD); otherwise kg's own local server on the
test data folder below, started by kg's launcher if it is not already running (`.ci/run` starts it beforehand).
Its ports: KG_TEST_BOLT_PORT / KG_TEST_HTTP_PORT when set, else those it already runs on, else free ones.

Under pytest-xdist (`pytest -n 2 --dist loadfile`) every worker has a server of its own: the graph is wiped between
tests, so two workers cannot share one. Worker gw0 uses the folder and ports above; worker gwN the folder with
`-gwN` appended and, when the ports are given, those ports plus 2·N.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg import settings as kg_settings
from kg.server import build, local
from kg.settings import Settings
from kg.store import Store
from tests.ports import free_ports

# A pytest-xdist worker inherits COLUMNS=80 from execnet, and kg's console reads it when kg.cli is imported: its
# tables would fold at 80 columns in a worker and at 160 (kg's width for a pipe) in a serial run. Tests see a pipe.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)

REPO = Path(__file__).resolve().parents[1]
TEST_DATA_DIR = Path(os.environ.get("KG_TEST_DATA_DIR", REPO / ".kg" / "test-neo4j"))


def xdist_worker() -> int:
    """This process's pytest-xdist worker number (gw0 → 0), 0 without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def test_server_settings() -> Settings:
    worker = xdist_worker()
    data_dir = TEST_DATA_DIR.with_name(f"{TEST_DATA_DIR.name}-gw{worker}") if worker else TEST_DATA_DIR
    overrides: dict[str, object] = {"data_dir": str(data_dir)}
    if os.environ.get("KG_TEST_BOLT_PORT") and os.environ.get("KG_TEST_HTTP_PORT"):
        overrides |= {"bolt_port": int(os.environ["KG_TEST_BOLT_PORT"]) + 2 * worker,
                      "http_port": int(os.environ["KG_TEST_HTTP_PORT"]) + 2 * worker}
    settings = kg_settings.load(overrides, cwd=REPO)
    if "bolt_port" in overrides or settings.uri_configured or local.is_running(settings):
        return settings  # a running server's own ports come with the settings
    bolt, http = free_ports(2)
    return kg_settings.load({**overrides, "bolt_port": bolt, "http_port": http}, cwd=REPO)


@pytest.fixture(scope="session")
def graph_settings() -> Iterator[Settings]:
    settings = test_server_settings()
    if settings.uri_configured and int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        pytest.exit("NEO4J_URI names one server, which xdist workers cannot share: run without -n", returncode=4)
    started_here = False
    if not settings.uri_configured and not local.is_running(settings):
        build.cache_root().mkdir(parents=True, exist_ok=True)
        with (build.cache_root() / "tests-launcher.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers: one Maven build of the launcher, not one each
            build.ensure_launcher()
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
