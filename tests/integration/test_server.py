"""The local server's lifecycle through the real `kg` command: a second Neo4j on its own ports and data folder."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kg.server import build

KG = [sys.executable, "-m", "kg"]
BOLT, HTTP = 27687, 27474


def kg(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KG, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory: pytest.TempPathFactory):
    project = tmp_path_factory.mktemp("project")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KG_"))}
    env |= {"KG_BOLT_PORT": str(BOLT), "KG_HTTP_PORT": str(HTTP), "KG_PROJECT": str(project)}
    yield project, env
    kg("server", "stop", env=env, cwd=project)


def test_start_status_double_start_stop(lifecycle) -> None:
    project, env = lifecycle
    started = kg("server", "start", "--json", env=env, cwd=project)
    assert started.returncode == 0, started.stderr
    state = json.loads(started.stdout)
    assert state["running"] and state["bolt_port"] == BOLT and not state["already_running"]
    assert state["data_dir"] == str(project / ".kg" / "neo4j")
    assert (project / ".kg" / "neo4j" / "password").stat().st_mode & 0o777 == 0o600

    with urllib.request.urlopen(f"http://127.0.0.1:{HTTP}/browser/", timeout=10) as page:
        assert page.status == 200 and b"Neo4j Browser" in page.read()

    status = kg("server", "status", "--json", env=env, cwd=project)
    assert status.returncode == 0 and json.loads(status.stdout)["pid"] == state["pid"]

    again = kg("server", "start", "--json", env=env, cwd=project)
    assert again.returncode == 0
    assert json.loads(again.stdout)["already_running"] and json.loads(again.stdout)["pid"] == state["pid"]

    init = kg("init", "--json", env=env, cwd=project)
    assert init.returncode == 0, init.stderr
    assert json.loads(init.stdout)["uri"] == f"bolt://127.0.0.1:{BOLT}"

    stopped = kg("server", "stop", "--json", env=env, cwd=project)
    assert json.loads(stopped.stdout) == {"stopped": True}
    assert kg("server", "status", env=env, cwd=project).returncode == 3
    assert json.loads(kg("server", "stop", "--json", env=env, cwd=project).stdout) == {"stopped": False}


def test_port_taken_by_another_process_is_one_line(lifecycle, tmp_path: Path) -> None:
    _, env = lifecycle
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        result = kg("server", "start", env={**env, "KG_BOLT_PORT": str(port), "KG_PROJECT": str(tmp_path)},
                    cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"error: port {port} (Bolt) is already in use by another process: stop it or set KG_BOLT_PORT"]


def test_missing_maven_and_java_are_one_line(lifecycle, tmp_path: Path) -> None:
    _, env = lifecycle
    bare = {**env, "PATH": str(Path(sys.executable).parent), "KG_PROJECT": str(tmp_path)}
    bare.pop("JAVA_HOME", None)
    unbuilt = kg("server", "start", env={**bare, "KG_CACHE_DIR": str(tmp_path / "cache")}, cwd=tmp_path)
    assert unbuilt.returncode == 1 and "Traceback" not in unbuilt.stderr
    assert unbuilt.stderr.strip().startswith("error: mvn not found: install Maven")

    build.ensure_launcher()
    built = kg("server", "start", env=bare, cwd=tmp_path)  # the launcher is cached, but there is no java
    assert built.returncode == 1 and "Traceback" not in built.stderr
    assert built.stderr.strip().startswith("error: java not found: install a JDK 17+")
