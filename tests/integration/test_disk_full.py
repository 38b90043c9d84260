"""A full disk costs the write in progress, never the store (issue 9.1).

A 300 MB tmpfs, mounted by the test (root only; CI runs as root), holds the data folder of a Neo4j of its own. A fresh
store starts there; an ingest is refused while the disk is below kg's free-space floor; with the floor off, ingests
run until the disk fills mid-write; a transaction log that cannot grow is driven to a failure too. After each, space
is freed, the server restarts, the store opens and nothing committed earlier is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import neo4j
import pytest
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg import settings as kg_settings
from kg.server import build
from kg.store import Store
from tests.graph_snapshot import snapshot
from tests.ports import free_ports
from tests.sdists import sdist

KG = [sys.executable, "-m", "kg"]
DISK_MB = 300


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory: pytest.TempPathFactory):
    """One small disk and one server for the module: every start costs tens of seconds on two busy cores."""
    tmp_path = tmp_path_factory.mktemp("small-disk")
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    bolt, http = free_ports(2)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KG_"))}
    env |= {"KG_DATA_DIR": str(mount / "neo4j"), "KG_BOLT_PORT": str(bolt), "KG_HTTP_PORT": str(http),
            "XDG_STATE_HOME": str(tmp_path / "state"), "KG_CACHE_DIR": str(build.cache_root()),
            "KG_NEO4J_HEAP": os.environ.get("KG_NEO4J_HEAP", "768m"), "KG_NEO4J_PAGECACHE": "128m"}
    yield mount, env
    kg("server", "stop", env=env, cwd=tmp_path)
    subprocess.run(["umount", "-l", str(mount)], check=False)


def kg(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KG, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def leave_free(mount: Path, megabytes: float) -> None:
    """Fill the disk with a ballast file until only `megabytes` are free."""
    ballast = mount / "ballast"
    ballast.unlink(missing_ok=True)
    stats = os.statvfs(mount)
    size = stats.f_bavail * stats.f_frsize - int(megabytes * 1024 * 1024)
    if size > 0:
        subprocess.run(["fallocate", "-l", str(size), str(ballast)], check=True)


def settings_for(env: dict[str, str], cwd: Path) -> kg_settings.Settings:
    return kg_settings.load({"data_dir": env["KG_DATA_DIR"], "bolt_port": env["KG_BOLT_PORT"],
                             "http_port": env["KG_HTTP_PORT"]}, cwd=cwd)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def settled_status(env: dict[str, str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    """`kg server status` once the server has reacted to the full disk. After a panic the launcher halts the JVM
    half a second later (the failing client gets its error first), so a status asked at once may still find it
    running with its database failed (exit 4, seen in CI); that state must not last."""
    deadline = time.monotonic() + 30
    while True:
        status = kg("server", "status", "--json", env=env, cwd=cwd)
        shown = json.loads(status.stdout)
        if status.returncode != 4 or time.monotonic() > deadline:
            return status, shown
        time.sleep(1)


def restart_after_freeing(mount: Path, env: dict[str, str], cwd: Path) -> dict:
    settled_status(env, cwd)  # a panic's halt comes half a second after the client's error
    (mount / "ballast").unlink()
    restarted = kg("server", "restart", "--json", env=env, cwd=cwd)
    assert restarted.returncode == 0, restarted.stderr
    state = json.loads(restarted.stdout)
    assert state["online"] and state["database"]["access"] == "read-write"
    return state


def test_a_full_disk_loses_nothing_committed(small_disk, tmp_path: Path) -> None:
    mount, env = small_disk
    flask, requests = sdist("flask", "3.0.3"), sdist("requests", "2.32.3")

    # A fresh store on a 300 MB disk starts (the transaction logs no longer preallocate 256 MB each).
    started = kg("server", "start", "--json", env=env, cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["online"]
    used = subprocess.run(["du", "-sm", str(mount / "neo4j")], capture_output=True, text=True, check=True)
    assert int(used.stdout.split()[0]) < 50
    assert kg("ingest", str(flask), "--repo", "flask", "--json", env=env, cwd=tmp_path).returncode == 0
    settings = settings_for(env, tmp_path)
    with Store.connect(settings) as store:
        before = snapshot(store, "flask")
    assert len(before[0]) > 1000

    # Below kg's floor (256 MB free by default) an ingest is refused before it writes anything.
    leave_free(mount, 100)
    refused = one_line_error(kg("ingest", str(requests), "--repo", "refused", env=env, cwd=tmp_path))
    assert "MB free on the disk holding" in refused and "kg needs 256 MB to ingest safely" in refused
    with Store.connect(settings) as store:
        assert store.read_text("MATCH (m:Module {repo: 'refused'}) RETURN count(m) AS n")[0]["n"] == 0

    # With the floor off, ingest until the disk fills mid-write: one line, and the store survives it.
    floorless = {**env, "KG_MIN_FREE_MB": "0"}
    leave_free(mount, 6)
    finished, failure = [], None
    for n in range(12):
        result = kg("ingest", str(requests), "--repo", f"r{n}", env=floorless, cwd=tmp_path)
        if result.returncode != 0:
            failure = one_line_error(result)
            break
        finished.append(f"r{n}")
    assert failure is not None, "the disk never filled"
    assert "disk holding" in failure and "is full" in failure, failure
    status, shown = settled_status(floorless, tmp_path)
    if shown["running"]:  # Neo4j refused the commit and turned the database read-only
        assert status.returncode == 0 and shown["database"]["access"] == "read-only", shown
        assert "is full" in shown["database"]["message"]
    else:  # the transaction log could not grow: Neo4j panicked and the launcher halted at once
        assert status.returncode == 3 and "stopped by itself" in shown["last_error"]

    restart_after_freeing(mount, floorless, tmp_path)
    with Store.connect(settings) as store:
        assert snapshot(store, "flask") == before
        for repo in finished:
            assert snapshot(store, repo) == snapshot(store, "r0")
        broken = f"r{len(finished)}"
        rerun = Ingestor(store, requests, repo=broken).run()  # the failed repository, redone
        assert rerun.written > 0
        GraphWriter(store, "clean").forget_repo()
        Ingestor(store, requests, repo="clean").run()
        assert snapshot(store, broken) == snapshot(store, "clean")


def test_a_transaction_log_that_cannot_grow_is_recovered(small_disk, tmp_path: Path) -> None:
    """Large properties in small transactions reach the disk's end in the transaction log itself (Neo4j's
    TransactionLogError, a database panic; seen every time with 5 MB left) or in a store file (a refused commit,
    read-only): either way every committed transaction is there after a restart. Writes with the driver: no
    ingest reaches the log's end this exactly. Runs on the server the test above left running."""
    mount, env = small_disk
    assert kg("server", "start", env=env, cwd=tmp_path).returncode == 0
    settings = settings_for(env, tmp_path)
    with neo4j.GraphDatabase.driver(settings.uri, auth=("neo4j", settings.password)) as driver:
        committed = driver.execute_query("MATCH (f:Filler) RETURN count(f) AS n").records[0]["n"]
    leave_free(mount, 5)
    wrote = 0
    with neo4j.GraphDatabase.driver(settings.uri, auth=("neo4j", settings.password)) as driver:
        # A halted server (the panic) reaches the driver as a lost connection rather than Neo4j's error.
        with pytest.raises((neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError)):
            for i in range(500):
                driver.execute_query("UNWIND range(1, 20) AS i CREATE (:Filler {batch: $batch, i: i, text: $text})",
                                     batch=i, text=f"{i}" + "x" * 20_000)
                committed += 20
                wrote = i + 1
    assert wrote > 0
    restart_after_freeing(mount, env, tmp_path)
    with neo4j.GraphDatabase.driver(settings.uri, auth=("neo4j", settings.password)) as driver:
        assert driver.execute_query("MATCH (f:Filler) RETURN count(f) AS n").records[0]["n"] == committed
