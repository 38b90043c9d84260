"""`kg server stop` while `kg ingest` writes (newuser4 #5): the ingest, which found the server running, does not start
it again (that start raced the stop and failed as "Neo4j did not start: the JVM exited", or came up to be stopped
again); it ends with one line saying the server stopped during the ingest and what to run. And the launcher's log
of a failed start is kept by the next start, so `kg server logs` still says why it failed. A real Neo4j of the
test's own (kg's launcher), a real `kg ingest` subprocess of flask 3.0.3 (PyPI sdist), stopped once its first
Function is in the graph, so the half state is deterministic."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kg import settings as kg_settings
from kg.errors import ServerError
from kg.server import local
from kg.store import Store
from kg.unfinished import unfinished_note
from tests.ports import free_ports
from tests.sdists import sdist


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    """One data folder and ports for the module: the second test uses the server the first one leaves running (a
    start costs tens of seconds on two busy cores); each test still begins from the state it needs."""
    tmp_path = tmp_path_factory.mktemp("own-server")
    bolt, http = free_ports(2)
    settings = kg_settings.load({"bolt_port": bolt, "http_port": http, "data_dir": str(tmp_path / "neo4j")},
                                cwd=tmp_path)
    yield settings
    local.stop(settings)


def test_an_ingest_that_loses_the_server_does_not_start_it_again(server: kg_settings.Settings,
                                                                 tmp_path: Path) -> None:
    # A start that fails (a heap the JVM refuses), then one that works: the failed one's log is still shown.
    local.stop(server)  # a stopped server to start with, whichever test ran first
    with pytest.raises(ServerError, match="Neo4j did not start: the JVM exited"):
        local.start(replace(server, heap="1k"))
    local.start(server)
    logs = local.logs(server, lines=200)
    previous = logs.get(str(server.data_dir / local.PREVIOUS_LOG), [])
    assert any("heap" in line.lower() for line in previous), logs  # the JVM's own reason
    assert any(line.startswith("KG-READY") for line in logs[str(server.data_dir / "server.log")])

    root = sdist("flask", "3.0.3")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")} | {
        "KG_BOLT_PORT": str(server.bolt_port), "KG_HTTP_PORT": str(server.http_port),
        "KG_DATA_DIR": str(server.data_dir)}
    ingest = subprocess.Popen([sys.executable, "-m", "kg", "ingest", str(root), "--repo", "flask"], cwd=tmp_path,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with Store.connect(server) as watcher:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and ingest.poll() is None and not watcher.read_text(
                "MATCH (f:Function {repo: 'flask'}) RETURN f LIMIT 1"):
            time.sleep(0.05)
    assert ingest.poll() is None, "the ingest ended before its first Function was written"
    assert local.stop(server)  # what `kg server stop` does
    _, stderr = ingest.communicate(timeout=300)

    assert ingest.returncode == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr  # was "starting the local Neo4j in …" and then a failed or raced start
    assert lines[0].startswith("error: the Neo4j server stopped during the ingest ("), stderr
    assert lines[0].endswith(f": start it with `kg server start` and run `kg ingest {root} --repo flask` again; "
                             "flask is marked unfinished until then"), stderr
    assert not local.status(server, database=False).running  # the ingest did not start it again
    assert not local.status(server, database=False).last_error  # nor left a failed start behind

    local.start(server)
    with Store.connect(server) as store:
        assert unfinished_note(store, "flask") is not None  # as the line said


def test_a_server_stopped_before_the_first_write_is_not_started_again(server: kg_settings.Settings,
                                                                      tmp_path: Path) -> None:
    """The stop lands after the ingest's first reads (over the Query API, as the CLI's one-shot ingest reads) and
    before its first write: the write's refused connection used to start the server again (then the ingest went on,
    or failed with "Neo4j did not start: the JVM exited" while the stopping server was still going away)."""
    from kg.ingest.pipeline import Ingestor

    from kg.errors import GraphUnavailable
    from kg.graph import open_writer

    local.start(server)  # already running when the test above ran first: it leaves it started
    with Store.connect(server) as fresh:
        fresh.write("graph_wipe")  # no flask from the test above: the ingest starts on an empty graph
    stopped: list[bool] = []

    def stop_before_the_first_write(stage: str, done: int, total: int) -> None:
        if stage == "write" and done == 0 and not stopped:
            stopped.append(local.stop(server))  # what `kg server stop` does; it returns once the server is gone

    store = open_writer(server, on_start=lambda message: pytest.fail(f"the ingest started the server: {message}"))
    with pytest.raises(GraphUnavailable, match="stopped answering while the command ran: start it with `kg server "
                                               "start`, then run the command again"):
        Ingestor(store, sdist("flask", "3.0.3"), repo="flask", cache_dir=tmp_path / "cache",
                 progress=stop_before_the_first_write).run()
    assert stopped == [True] and not local.status(server, database=False).running
