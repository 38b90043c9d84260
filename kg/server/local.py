"""Start, stop and inspect kg's local Neo4j: one JVM per data folder, tracked by a pid file next to the data.

Files in the data folder: `server.pid` (the JVM's pid), `server.json` (ports and start time), `server.log` (the
launcher's output; Neo4j's own logs are under `logs/`), `password` (see kg.settings).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from kg.errors import PortInUse, ServerError
from kg.server import build
from kg.settings import Settings

JVM_FLAGS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+UseG1GC",
)
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt_port: int
    http_port: int
    data_dir: str
    browser_url: str
    uri: str
    already_running: bool = False
    seconds: float | None = None  # how long start took

    def to_dict(self) -> dict:
        return asdict(self)


def status(settings: Settings) -> ServerStatus:
    state = _read_state(settings.data_dir)
    pid = _live_launcher_pid(settings.data_dir)
    bolt = state.get("bolt_port", settings.bolt_port)
    http = state.get("http_port", settings.http_port)
    return ServerStatus(
        running=pid is not None and _answers(bolt),
        pid=pid,
        bolt_port=bolt,
        http_port=http,
        data_dir=str(settings.data_dir),
        browser_url=f"http://127.0.0.1:{http}/browser/",
        uri=f"bolt://127.0.0.1:{bolt}",
    )


def start(settings: Settings, timeout: float = START_TIMEOUT_S,
          on_build: Callable[[str], None] | None = None) -> ServerStatus:
    """Start the local server unless it already runs; return once Bolt answers."""
    current = status(settings)
    if current.running:
        return ServerStatus(**{**current.to_dict(), "already_running": True})
    if current.pid is not None:  # alive but not answering yet: another `start` is in progress
        return _wait_until_ready(settings, current.pid, time.monotonic() + timeout, time.monotonic())

    for port, name, env in ((settings.bolt_port, "Bolt", "KG_BOLT_PORT"), (settings.http_port, "HTTP", "KG_HTTP_PORT")):
        if not _port_free(port):
            raise PortInUse(f"port {port} ({name}) is already in use by another process: stop it or set {env}")

    began = time.monotonic()
    classpath = build.ensure_launcher(on_build)
    data_dir = settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    password_mark = data_dir / "data" / "kg-password.sha256"  # inside Neo4j's store: gone when the store is
    password_digest = hashlib.sha256(settings.password.encode()).hexdigest()
    env = {
        **os.environ,
        "KG_NEO4J_HOME": str(data_dir),
        "KG_BOLT_PORT": str(settings.bolt_port),
        "KG_HTTP_PORT": str(settings.http_port),
        "KG_PAGECACHE": settings.pagecache,
        "KG_NEO4J_PASSWORD": settings.password,
        # Setting the password costs seconds at every start; skip it when this store already has this one.
        "KG_PASSWORD_ALREADY_SET": "1" if _read(password_mark) == password_digest else "0",
    }
    command = [build.java_executable(), "-Xms256m", f"-Xmx{settings.heap}", *JVM_FLAGS, "-cp", classpath,
               build.MAIN_CLASS]
    log = (data_dir / "server.log").open("w", encoding="utf-8")
    with log:
        process = subprocess.Popen(command, cwd=data_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    (data_dir / "server.pid").write_text(f"{process.pid}\n", encoding="utf-8")
    (data_dir / "server.json").write_text(json.dumps({
        "pid": process.pid, "bolt_port": settings.bolt_port, "http_port": settings.http_port,
        "started_at": time.time(),
    }), encoding="utf-8")
    ready = _wait_until_ready(settings, process.pid, began + timeout, began, process)
    password_mark.write_text(password_digest, encoding="utf-8")
    return ready


def stop(settings: Settings, timeout: float = STOP_TIMEOUT_S) -> bool:
    """Stop the local server; False when none was running. SIGTERM lets Neo4j shut down cleanly."""
    pid = _live_launcher_pid(settings.data_dir)
    if pid is None:
        _forget(settings.data_dir)
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.2)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    _forget(settings.data_dir)
    return True


def logs(settings: Settings, lines: int = 40) -> str:
    parts = []
    for path in (settings.data_dir / "server.log", settings.data_dir / "logs" / "neo4j.log",
                 settings.data_dir / "logs" / "debug.log"):
        if path.exists():
            tail = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            parts.append(f"==> {path} <==\n" + "\n".join(tail))
    return "\n\n".join(parts) or f"no logs yet in {settings.data_dir}"


def _wait_until_ready(settings: Settings, pid: int, deadline: float, began: float,
                      process: subprocess.Popen | None = None) -> ServerStatus:
    log = settings.data_dir / "server.log"
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        error = next((line for line in text.splitlines() if line.startswith("KG-ERROR ")), None)
        exited = process.poll() is not None if process else not _alive(pid)
        if error or exited:
            if process and process.poll() is None:
                process.kill()
            _forget(settings.data_dir)
            reason = error.removeprefix("KG-ERROR ") if error else "the JVM exited"
            raise ServerError(f"Neo4j did not start: {reason} (see `kg server logs`)")
        if "KG-READY" in text and _answers(settings.bolt_port):
            ready = status(settings)
            return ServerStatus(**{**ready.to_dict(), "seconds": round(time.monotonic() - began, 2)})
        time.sleep(0.2)
    raise ServerError(f"Neo4j did not answer within {int(deadline - began)} s: see `kg server logs`")


def _live_launcher_pid(data_dir: Path) -> int | None:
    try:
        pid = int((data_dir / "server.pid").read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    if not _alive(pid):
        return None
    # A recycled pid belongs to some other program: only our launcher counts.
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid
    return pid if build.MAIN_CLASS.encode() in cmdline else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped) is not alive
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (OSError, IndexError):
        return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _read_state(data_dir: Path) -> dict:
    try:
        return json.loads((data_dir / "server.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _forget(data_dir: Path) -> None:
    for name in ("server.pid", "server.json"):
        (data_dir / name).unlink(missing_ok=True)


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
