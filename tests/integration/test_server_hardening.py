"""The local server against a hostile repository and unlucky timing, through the real `kg` command and a real
Neo4j started by kg's launcher (attack report #2, #3, #4, #6, #11 and the kill -9 status of #11).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kg.server import build
from tests.ports import free_ports

KG = [sys.executable, "-m", "kg"]
PASSWORD = "the-users-real-neo4j-secret"


def kg(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KG, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def user_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KG_", "XDG_"))}
    return env | {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state"),
                  "KG_CACHE_DIR": str(build.cache_root()), "KG_NEO4J_HEAP": os.environ.get("KG_NEO4J_HEAP", "768m"),
                  "KG_NEO4J_PAGECACHE": os.environ.get("KG_NEO4J_PAGECACHE", "256m")}


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.chmod(outside, 0o755)
    (outside / "precious.txt").write_text("IMPORTANT USER DATA\n")
    return outside


@pytest.fixture(scope="module")
def raced(tmp_path_factory: pytest.TempPathFactory):
    """Two `kg server start` at once on a stopped data folder whose server.log is a symlink to a user's file."""
    home = tmp_path_factory.mktemp("home")
    precious = home / "precious.txt"
    precious.write_text("IMPORTANT USER DATA\n")
    data = home / "neo4j"
    data.mkdir()
    (data / "server.log").symlink_to(precious)
    bolt, http = free_ports(2)
    env = user_env(home) | {"KG_DATA_DIR": str(data), "KG_BOLT_PORT": str(bolt), "KG_HTTP_PORT": str(http),
                            "NEO4J_PASSWORD": PASSWORD}
    starts = [subprocess.Popen([*KG, "server", "start", "--json"], env=env, cwd=home, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=400), *p.communicate()) for p in starts]
    try:
        yield home, env, data, precious, results
    finally:
        kg("server", "stop", env=env, cwd=home)


def test_two_commands_that_find_the_server_down_share_one_start(raced) -> None:
    """#11: both launched a JVM on one store and both failed on its lock; now the second waits for the first."""
    _, _, data, _, results = raced
    assert [code for code, _, _ in results] == [0, 0], [err for _, _, err in results]
    shown = [json.loads(out) for _, out, _ in results]
    assert shown[0]["pid"] == shown[1]["pid"] and all(s["online"] for s in shown)
    assert sorted(s["already_running"] for s in shown) == [False, True]
    assert (data / "server.pid").read_text().strip() == str(shown[0]["pid"])


def test_the_launcher_log_is_not_written_through_a_symlink(raced) -> None:
    """#3a: server.log was opened with O_TRUNC through a committed symlink and overwrote the user's file."""
    _, _, data, precious, _ = raced
    assert precious.read_text() == "IMPORTANT USER DATA\n"
    log = data / "server.log"
    assert not log.is_symlink() and "KG-READY" in log.read_text()
    assert log.stat().st_mode & 0o777 == 0o600


def test_a_project_file_cannot_send_the_password_to_its_own_server(raced, tmp_path: Path) -> None:
    """#6: `neo4j.uri` in a repository's .agent/kg.yaml received the user's NEO4J_PASSWORD. Now a command in that
    repository talks to the user's server and says in one note what it ignored."""
    _, env, _, _, _ = raced
    connections: list[bytes] = []
    with socket.socket() as fake:
        fake.bind(("127.0.0.1", 0))
        fake.listen()
        fake.settimeout(30)

        def capture() -> None:
            try:
                conn, _ = fake.accept()
                with conn:
                    conn.settimeout(5)
                    connections.append(conn.recv(4096))
            except OSError:
                pass

        listener = threading.Thread(target=capture, daemon=True)
        listener.start()
        project = tmp_path / "cloned"
        (project / ".agent").mkdir(parents=True)
        (project / ".agent" / "kg.yaml").write_text(
            f"neo4j:\n  uri: bolt://127.0.0.1:{fake.getsockname()[1]}\n  user: neo4j\n")
        result = kg("status", "--json", env=env, cwd=project)
        assert result.returncode == 0, result.stderr
        assert result.stderr.strip() == (
            "note: .agent/kg.yaml sets neo4j.uri, neo4j.user, ignored: a repository does not choose kg's server or "
            "data folder (give uri: --uri or NEO4J_URI; user: NEO4J_USER)")
        fake.close()
        listener.join(timeout=10)
    assert connections == []


def test_a_server_killed_outside_kg_is_reported_as_stopped_unexpectedly(raced) -> None:
    """#11 (end): after a kill -9 of a server that ran, status said "the last start failed". Kills the server of
    `raced`, so it comes after the tests that use it."""
    home, env, data, _, results = raced
    pid = json.loads(results[0][1])["pid"]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and \
            Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z":
        time.sleep(0.2)
    status = kg("server", "status", env=env, cwd=home)
    assert status.returncode == 3
    assert f"it stopped unexpectedly: the server (pid {pid}, running since " in status.stdout
    assert "last start failed" not in status.stdout
    shown = json.loads(kg("server", "status", "--json", env=env, cwd=home).stdout)
    assert shown["stopped_unexpectedly"] and not shown["running"]
    kg("server", "stop", env=env, cwd=home)  # records the death; status keeps saying it
    again = json.loads(kg("server", "status", "--json", env=env, cwd=home).stdout)
    assert again["stopped_unexpectedly"] and "stopped by itself" in again["last_error"]


def test_a_plugin_jar_stops_the_start(tmp_path: Path) -> None:
    """#4: Neo4j loaded every jar in `<data_dir>/plugins`; kg's server loads none and says what to remove."""
    data = tmp_path / "neo4j"
    (data / "plugins").mkdir(parents=True)
    (data / "plugins" / "evil.jar").write_bytes(b"PK\x03\x04 not really a jar")
    bolt, http = free_ports(2)
    env = user_env(tmp_path) | {"KG_DATA_DIR": str(data), "KG_BOLT_PORT": str(bolt), "KG_HTTP_PORT": str(http)}
    try:
        line = one_line_error(kg("server", "start", env=env, cwd=tmp_path))
    finally:
        kg("server", "stop", env=env, cwd=tmp_path)
    assert line == (f"error: {data / 'plugins'} holds evil.jar: kg's Neo4j loads no plugins; remove everything in "
                    f"that folder, then start again")
    assert not (data / "server.pid").exists() and not (data / "neo4j.conf").exists()


@pytest.mark.parametrize("link", ["data folder", "import"])
def test_a_symlinked_data_or_import_folder_is_refused_and_left_alone(tmp_path: Path, victim: Path, link: str) -> None:
    """#3b: the data folder (and `import/`) were chmod-ed through symlinks, then used."""
    if link == "data folder":
        data = tmp_path / "neo4j"
        data.symlink_to(victim)
        culprit = data
    else:
        data = tmp_path / "neo4j"
        data.mkdir()
        culprit = data / "import"
        culprit.symlink_to(victim)
    bolt, http = free_ports(2)
    env = user_env(tmp_path) | {"KG_DATA_DIR": str(data), "KG_BOLT_PORT": str(bolt), "KG_HTTP_PORT": str(http)}
    try:
        line = one_line_error(kg("server", "start", env=env, cwd=tmp_path))
    finally:
        kg("server", "stop", env=env, cwd=tmp_path)
    assert line.startswith(f"error: {culprit} is a symlink: kg keeps its files only in a real folder of its own")
    assert victim.stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in victim.iterdir()) == ["precious.txt"]


def test_a_hostile_project_file_neither_injects_settings_nor_picks_the_data_folder(tmp_path: Path) -> None:
    """#2 and #3: `pagecache: "64m\\r<setting>"` added a Neo4j setting; `data_dir: ..` chose where kg writes."""
    project = tmp_path / "cloned"
    (project / ".agent").mkdir(parents=True)
    kg_yaml = project / ".agent" / "kg.yaml"
    kg_yaml.write_text('server:\n  data_dir: ..\n  pagecache: "64m\\rserver.logs.config=/tmp/evil.xml"\n')
    bolt, http = free_ports(2)
    env = user_env(tmp_path) | {"KG_BOLT_PORT": str(bolt), "KG_HTTP_PORT": str(http)}
    env.pop("KG_NEO4J_PAGECACHE")
    try:
        line = one_line_error(kg("server", "start", env=env, cwd=project))
    finally:  # had it started, on the folder the file chose or the user's
        kg("--data-dir", str(tmp_path), "server", "stop", env=env, cwd=project)
        kg("server", "stop", env=env, cwd=project)
    assert line.startswith("error: server.pagecache in .agent/kg.yaml is '64m\\rserver.logs.config=/tmp/evil.xm")
    assert line.endswith("give a memory size such as 512m or 2g")
    assert not list(tmp_path.rglob("neo4j.conf"))

    kg_yaml.write_text("server:\n  data_dir: ..\n  pagecache: 300m\n")
    config = kg("config", "--json", env=env, cwd=project)
    assert config.returncode == 0, config.stderr
    shown = json.loads(config.stdout)
    assert shown["data_dir"]["value"] == str(tmp_path / "data" / "kg" / "neo4j")
    assert shown["pagecache"] == {"value": "300m", "from": ".agent/kg.yaml"}
    assert "sets server.data_dir, ignored" in config.stderr
