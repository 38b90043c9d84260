"""A Neo4j that dies in the middle of an ingest: the run fails with one clear error, and the next run, once the
server is back, leaves exactly the graph a clean ingest would; the CLI says so in one line, with none of the
driver's own log lines before it. Uses a Neo4j of its own, killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg import settings as kg_settings
from kg.errors import GraphUnavailable, KgError
from kg.server import local
from kg.store import Store
from tests.graph_snapshot import snapshot
from tests.ports import free_ports
from tests.sdists import sdist


@pytest.fixture
def doomed_server(tmp_path: Path):
    bolt, http = free_ports(2)
    settings = kg_settings.load({"bolt_port": bolt, "http_port": http, "data_dir": str(tmp_path / "neo4j")},
                                cwd=tmp_path)
    local.start(settings)
    yield settings
    local.stop(settings)


def test_rerun_after_neo4j_died_mid_ingest_equals_a_clean_ingest(doomed_server, tmp_path: Path) -> None:
    root = sdist("flask", "3.0.3")
    pid = local.status(doomed_server).pid
    killed = threading.Event()

    def kill_soon(stage: str, done: int, total: int) -> None:
        if stage == "write" and done == 0 and not killed.is_set():
            killed.set()
            threading.Timer(0.4, os.kill, (pid, signal.SIGKILL)).start()

    store = Store.connect(doomed_server)
    with pytest.raises(KgError) as failure:
        Ingestor(store, root, repo="flask", cache_dir=tmp_path / "cache", progress=kill_soon).run()
    store.close()
    assert isinstance(failure.value, GraphUnavailable) and "cannot reach Neo4j" in str(failure.value)

    local.start(doomed_server)
    with Store.connect(doomed_server) as store:
        partial = store.read_text("MATCH (m:Module {repo: 'flask'}) RETURN count(m) AS all, count(m.hash) AS marked")
        assert partial[0]["marked"] < 82  # the kill landed before the ingest finished

        rerun = Ingestor(store, root, repo="flask", cache_dir=tmp_path / "cache").run()
        assert rerun.written > 0
        GraphWriter(store, "clean").forget_repo()
        Ingestor(store, root, repo="clean").run()
        assert snapshot(store, "flask") == snapshot(store, "clean")

        # The CLI, connected when the server dies: one line, none of the driver's own lines before it.
        GraphWriter(store, "clean").forget_repo()
        baseline = len(store.read_text("CALL dbms.listConnections() YIELD connectionId RETURN connectionId"))
        cli = subprocess.Popen([sys.executable, "-m", "kg", "ingest", str(root), "--repo", "cli"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "NEO4J_URI": doomed_server.uri,
                                    "NEO4J_PASSWORD": doomed_server.password})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and cli.poll() is None and len(store.read_text(
                "CALL dbms.listConnections() YIELD connectionId RETURN connectionId")) <= baseline:
            time.sleep(0.05)
        os.kill(local.status(doomed_server).pid, signal.SIGKILL)
        _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 1
    assert stderr.strip().splitlines() == [f"error: cannot reach Neo4j at {doomed_server.uri}: check NEO4J_URI"], stderr
