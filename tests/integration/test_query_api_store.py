"""Small writes over the HTTP Query API (kg.query_api.QueryApiStore, what a one-shot `kg ingest` writes through)
against the real local server: edit sequences applied through it equal a clean ingest through the driver, a failed
transaction leaves nothing, and a one-file `kg ingest` never imports the driver."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.lock import end_orphaned_writes
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg.query_api import QueryApiStore
from kg.settings import Settings
from kg.store import Store
from tests.graph_snapshot import snapshot
from tests.integration.test_ingest import apply, edit_steps

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"


class Counted:
    """The driver-backed fallback, counting how often the HTTP store needed it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.calls = 0

    def __call__(self) -> Store:
        self.calls += 1
        return self.store


@pytest.fixture
def api(store: Store, graph_settings: Settings) -> tuple[QueryApiStore, Counted]:
    if graph_settings.uri_configured:
        pytest.skip("the Query API store writes to kg's local server only")
    fallback = Counted(store)
    return QueryApiStore(store.settings, fallback=fallback), fallback  # not closed: it would close the fixture's


def test_edit_sequences_written_over_http_equal_a_clean_ingest(store: Store, api: tuple[QueryApiStore, Counted],
                                                                tmp_path: Path) -> None:
    http, fallback = api
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    Ingestor(http, work, repo="inc", cache_dir=tmp_path / "cache").run()
    for name, changes in edit_steps(work):
        apply(work, changes)
        report = Ingestor(http, work, repo="inc", cache_dir=tmp_path / "cache").run()  # a new process each time
        assert report.written or report.deleted, name
        GraphWriter(store, "clean").forget_repo()
        Ingestor(store, work, repo="clean").run()
        assert snapshot(store, "inc") == snapshot(store, "clean"), f"after step: {name}"
    # a first ingest of a small tree and every later step fit one transaction: the driver was never needed
    # (the schema exists: the fixture applied it)
    assert fallback.calls == 0


def test_a_failed_transaction_leaves_nothing_and_holds_no_lock(store: Store,
                                                               api: tuple[QueryApiStore, Counted]) -> None:
    http, _ = api

    def work(tx: object) -> None:
        tx.write("ingest/repo_put", repo="half", root="/nowhere", role="target")  # type: ignore[attr-defined]
        raise RuntimeError("stopped half way")

    with pytest.raises(RuntimeError):
        http.transaction(work)
    assert not [r for r in store.read("repos") if r["repo"] == "half"]
    # the rolled-back transaction holds no lock on the node: the same write lands at once, through the driver too
    http.transaction(lambda tx: tx.write("ingest/repo_put", repo="half", root="/here", role="target"))
    store.write("ingest/repo_put", repo="half", root="/there", role="target")
    assert [r["repo"] for r in store.read("repos") if r["repo"] == "half"] == ["half"]
    GraphWriter(store, "half").forget_repo()


def test_a_one_file_cli_ingest_never_imports_the_driver(store: Store, graph_settings: Settings,
                                                        tmp_path: Path) -> None:
    """`kg ingest` of a small change writes over HTTP: the driver (with numpy, ~0.3 s of CPU) is never imported."""
    if graph_settings.uri_configured:
        pytest.skip("the Query API store writes to kg's local server only")
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    env = {k: v for k, v in os.environ.items() if k not in ("NEO4J_URI", "NEO4J_PASSWORD")}
    env.update(KG_BOLT_PORT=str(graph_settings.bolt_port), KG_HTTP_PORT=str(graph_settings.http_port),
               KG_DATA_DIR=str(graph_settings.data_dir), KG_PROJECT=str(REPO_ROOT),
               KG_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-X", "importtime", "-m", "kg", "ingest", str(work), "--repo", "cli", "--json"]
    for step in ("first", "edit"):
        if step == "edit":
            cart = work / "shop" / "cart.py"
            cart.write_text(cart.read_text() + "\n\ndef probe():\n    return 1\n")
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        assert report["written"] == (1 if step == "edit" else report["files"] + report["documents"])
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:")}
        assert "kg.query_api" in imported
        assert not {m for m in imported if m.split(".")[0] in ("neo4j", "numpy")}, step
    assert store.read("find_symbol", symbol="probe", repo="cli", limit=5)
    GraphWriter(store, "cli").forget_repo()


ORPHAN = """
import os, signal, sys
from kg import settings
from kg.ingest.lock import ingest_label
from kg.query_api import QueryApiStore

api = QueryApiStore(settings.load())
api.write_metadata = ingest_label(sys.argv[1])  # what Ingestor.run sets for its writes


def work(tx):
    tx.write("ingest/repo_put", repo=sys.argv[1], root=sys.argv[2], role="target")
    tx.write("ingest/files_clear", [{"path": "shop/cart.py"}], repo=sys.argv[1])
    print("ready", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # as `kill -9` of kg ingest mid-write: the transaction stays open


api.transaction(work)
"""


def test_a_killed_ingests_open_transaction_is_ended_by_the_next_run(store: Store, graph_settings: Settings,
                                                                    api: tuple[QueryApiStore, Counted],
                                                                    tmp_path: Path) -> None:
    """attack4 B4: `kill -9` of `kg ingest` mid-write left its transaction open in Neo4j, holding its locks until
    the Query API's idle timeout (~60 s), so the next ingest of that repository waited that long. A run labels its
    write transactions; the next run, holding the repository's lock, ends the labelled ones of this machine
    (their process is gone), says so in one line, and writes the same graph as a clean ingest. The orphan here is
    made by a real process that dies with SIGKILL inside kg's own HTTP transaction, after the writes a one-file
    ingest starts with."""
    http, _ = api
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    Ingestor(http, work, repo="orphan").run()
    env = {k: v for k, v in os.environ.items() if k not in ("NEO4J_URI", "NEO4J_PASSWORD")}
    env.update(KG_BOLT_PORT=str(graph_settings.bolt_port), KG_HTTP_PORT=str(graph_settings.http_port),
               KG_DATA_DIR=str(graph_settings.data_dir), KG_PROJECT=str(REPO_ROOT))
    done = subprocess.run([sys.executable, "-c", ORPHAN, "orphan", str(work)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == -9 and done.stdout == "ready\n", done.stderr[-2000:]
    orphans = "ingest/orphans"
    assert len(store.read(orphans, repo="orphan", host=socket.gethostname())) == 1

    cart = work / "shop" / "cart.py"
    cart.write_text(cart.read_text() + "\n\ndef probe():\n    return 1\n")
    report = Ingestor(http, work, repo="orphan").run()
    assert report.written == 1
    assert len(report.notes) == 1 and "ended 1 transaction(s) an earlier kg ingest of orphan" in report.notes[0]
    assert store.read(orphans, repo="orphan", host=socket.gethostname()) == []
    Ingestor(store, work, repo="clean").run()
    assert snapshot(store, "orphan") == snapshot(store, "clean")


# a live run holding its transaction (one that took another lock file for the same graph)
ALIVE = ORPHAN.replace("os.kill(os.getpid(), signal.SIGKILL)", "signal.pause()")


def test_a_live_runs_transaction_is_not_ended_only_a_dead_ones(store: Store, graph_settings: Settings,
                                                               api: tuple[QueryApiStore, Counted],
                                                               tmp_path: Path) -> None:
    """attack5 C4: the lock file is per address spelling, cache folder and user, so a run of the same repository
    through `localhost` while another ran through `127.0.0.1` ended that live run's transaction ("its process is
    gone" — it was not). Only a labelled transaction whose process is gone is ended."""
    http, _ = api
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    env = {k: v for k, v in os.environ.items() if k not in ("NEO4J_URI", "NEO4J_PASSWORD")}
    env.update(KG_BOLT_PORT=str(graph_settings.bolt_port), KG_HTTP_PORT=str(graph_settings.http_port),
               KG_DATA_DIR=str(graph_settings.data_dir), KG_PROJECT=str(REPO_ROOT))
    live = subprocess.Popen([sys.executable, "-c", ALIVE, "alive", str(work)], stdout=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert live.stdout.readline() == "ready\n"
        assert len(store.read("ingest/orphans", repo="alive", host=socket.gethostname())) == 1
        assert end_orphaned_writes(http, "alive") is None
        assert len(store.read("ingest/orphans", repo="alive", host=socket.gethostname())) == 1
    finally:
        live.kill()
        live.wait(timeout=60)
    assert "ended 1 transaction(s)" in (end_orphaned_writes(http, "alive") or "")
    assert store.read("ingest/orphans", repo="alive", host=socket.gethostname()) == []
    GraphWriter(store, "alive").forget_repo()


def test_an_orphan_busy_running_a_statement_is_terminated(store: Store, api: tuple[QueryApiStore, Counted]) -> None:
    """attack5 C5: the Query API refuses the DELETE of a transaction that is running a statement (500, "unknown
    error") and ends nothing, yet the next run said "ended 1 transaction(s) … rolled back" and then waited on its
    locks. Now the run TERMINATEs what the Query API did not roll back, checks what is still open, and says so.
    The orphan is a real Query API transaction labelled as a kg ingest of a process that is gone, busy with a long
    statement in another thread (as a killed run's last statement goes on in the server)."""
    import threading

    from kg.query_api import _HttpTransaction

    http, _ = api
    http.write_metadata = {"kg_ingest": "busy", "host": socket.gethostname(), "pid": _ended_pid()}
    tx = _HttpTransaction(http)
    tx.write("ingest/repo_put", repo="busy", root="/nowhere", role="target")
    failed: list[BaseException] = []

    def long_statement() -> None:
        try:
            tx._run("UNWIND range(1, 3000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n", {})
        except BaseException as e:  # noqa: BLE001 — what the statement ended with is the point
            failed.append(e)

    running = threading.Thread(target=long_statement, daemon=True)
    running.start()
    show = "SHOW TRANSACTIONS YIELD transactionId, currentQuery, metaData WHERE metaData.kg_ingest = 'busy' " \
           "RETURN transactionId AS id, currentQuery AS query"
    try:
        for _ in range(150):
            if any("range(" in (row["query"] or "") for row in store.read_text(show)):
                break
            threading.Event().wait(0.2)
        else:
            pytest.fail("the long statement never showed as running")
        note = end_orphaned_writes(store, "busy")
        assert note is not None and "ended 1 transaction(s) an earlier kg ingest of busy" in note
        assert "(1 by TERMINATE: the Query API did not roll it back)" in note, note
        assert store.read("ingest/orphans", repo="busy", host=socket.gethostname()) == []
        running.join(60)
        assert not running.is_alive() and failed and "terminated" in str(failed[0]).lower(), failed
        assert not store.read_text("MATCH (r:Repo {name: 'busy'}) RETURN r.name AS name")  # rolled back
    finally:
        left = [row["id"] for row in store.read_text(show)]
        if left and running.is_alive():
            store.write("ingest/orphans_end", ids=left)


def _ended_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid
