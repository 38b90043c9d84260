"""A Neo4j that dies in the middle of an ingest: the run fails with one clear error; until the next run, answers about
the half-written repository say it was not completely ingested (dead code refuses rather than call everything
dead); the next run, once the server is back, leaves exactly the graph a clean ingest would; the CLI says so in one
line, with none of the driver's own log lines before it. Uses a Neo4j of its own, killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg import settings as kg_settings
from kg.errors import GraphUnavailable, InputError, KgError
from kg.navigate import answers
from kg.retrieve import embed
from kg.retrieve.context import build
from kg.review.collect import collect
from kg.review.rules import Architecture
from kg.server import local
from kg.store import Store
from kg.unfinished import unfinished_note
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

    def kill_once_symbols_are_written() -> None:  # nodes are in, their edges wait for resolution to end
        with Store.connect(doomed_server) as watcher:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not watcher.read_text(
                    "MATCH (f:Function {repo: 'flask'}) RETURN f LIMIT 1"):
                time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)

    def kill_soon(stage: str, done: int, total: int) -> None:
        if stage == "write" and done == 0 and not killed.is_set():
            killed.set()
            threading.Thread(target=kill_once_symbols_are_written).start()

    store = Store.connect(doomed_server)
    with pytest.raises(KgError) as failure:
        Ingestor(store, root, repo="flask", cache_dir=tmp_path / "cache", progress=kill_soon).run()
    store.close()
    message = str(failure.value)  # the kill lands between writes or during a commit
    assert isinstance(failure.value, GraphUnavailable) and ("cannot reach Neo4j" in message or
                                                            "lost Neo4j" in message), message

    local.start(doomed_server)
    with Store.connect(doomed_server) as store:
        partial = store.read_text("MATCH (m:Module {repo: 'flask'}) RETURN count(m) AS all, count(m.hash) AS marked")
        assert partial[0]["marked"] < 82  # the kill landed before the ingest finished
        said = _answers_say_unfinished(store, doomed_server, tmp_path)

        rerun = Ingestor(store, root, repo="flask", cache_dir=tmp_path / "cache").run()
        assert rerun.written > 0
        assert unfinished_note(store, "flask") is None
        assert not [n for n in answers.callers(store, said, repo="flask").notes if "not completely" in n]
        GraphWriter(store, "clean").forget_repo()
        Ingestor(store, root, repo="clean").run()
        assert _ingested(snapshot(store, "flask")) == snapshot(store, "clean")

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


def _answers_say_unfinished(store: Store, settings: kg_settings.Settings, cwd: Path) -> str:
    """Every kind of answer about the half-written repository says so in one line; dead code and the review (whose
    graph has no model yet) refuse. Returns the function asked about."""
    note = unfinished_note(store, "flask")
    assert note is not None and note.startswith("repository flask was not completely ingested (interrupted: the "
                                                "ingest started at ")
    assert note.endswith(f"run `kg ingest {sdist('flask', '3.0.3')} --repo flask` again")
    function = store.read_text("MATCH (f:Function {repo: 'flask'}) RETURN f.qname AS q ORDER BY q LIMIT 1")[0]["q"]
    assert note in answers.callers(store, function, repo="flask").notes
    assert note in answers.callees(store, function, repo="flask").notes
    assert note in answers.impact(store, [function], repo="flask").notes
    assert note in build(store, "flask", f"fix {function}", embedder=embed.load("none"), record=False).notes
    for refused in (lambda: answers.dead_code(store, "flask"), lambda: collect(store, "flask", Architecture())):
        with pytest.raises(InputError) as error:
            refused()
        assert str(error.value).startswith(note + ";")

    env = {"NEO4J_URI": settings.uri, "NEO4J_PASSWORD": settings.password}
    callers = subprocess.run([sys.executable, "-m", "kg", "callers", function, "--repo", "flask"], cwd=cwd,
                             env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert callers.returncode == 0 and " ".join(note.split()) in " ".join(callers.stdout.split()), callers
    dead = subprocess.run([sys.executable, "-m", "kg", "dead-code", "--repo", "flask"], cwd=cwd,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert dead.returncode == 1 and dead.stderr.strip().splitlines() == [f"error: {note}; dead code is not answered "
                                                                        "until then"], dead

    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(cwd), env=env)
    said: dict[str, Any] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            said["callers"] = await client.call_tool("callers", {"symbol": function, "repo": "flask"})
            said["context"] = await client.call_tool("context", {"task": f"fix {function}", "repo": "flask"})

    anyio.run(session)
    assert not said["callers"].is_error and note in _text(said["callers"]).splitlines()
    assert not said["context"].is_error and f"note: {note}" in _text(said["context"]).splitlines(), said
    return function


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None))


def _ingested(graph: tuple[list[str], list[str]]) -> tuple[list[str], list[str]]:
    """The snapshot without the budget record (:ContextCall) of the MCP `context` call made before the rerun."""
    nodes, edges = graph
    return [n for n in nodes if '"ContextCall"' not in n], edges
