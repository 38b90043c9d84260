"""Start, stop and inspect kg's local Neo4j: one JVM per data folder (by default one per user, see kg.settings).

Files in the data folder, all owner-only: `neo4j.conf` (the settings of kg/server/neo4j_config.py), `server.pid`
and `server.json` (see kg.server.state), `server.log` (the launcher's output; Neo4j's own logs are under `logs/`)
and `server.previous.log` (the start before), `password` (see kg.settings), `import/` (kept empty) and Neo4j's store
under `data/`.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from kg import disk
from kg.errors import KgError, PortInUse, ServerError
from kg.server import build, state
from kg.server.neo4j_config import write_conf
from kg.settings import Settings
from kg.store import Store

JVM_FLAGS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+UseG1GC",
)
START_TIMEOUT_S = 180.0
PORT_WAIT_S = 10.0  # how long a start waits for a port the last server may still be letting go of
STOP_TIMEOUT_S = 60.0
START_MIN_FREE_MB = 64  # a start writes a little (recovery, a checkpoint, logs) even before anything is ingested
PREVIOUS_LOG = "server.previous.log"  # the launcher's log of the start before the last (`kg server logs`)
DEFAULT_DATABASE = "neo4j"  # the one user database of Neo4j Community, created by the launcher's first start


@dataclass(frozen=True)
class DatabaseState:
    """The `neo4j` database as Neo4j itself reports it (SHOW DATABASES on the system database)."""

    name: str
    status: str  # "online", "offline", "failed" (Neo4j stopped writing to it), "unknown" (could not ask)
    access: str = ""  # "read-write" or "read-only"
    message: str = ""  # Neo4j's reason when it is not healthy

    @property
    def online(self) -> bool:
        return self.status == "online"


@dataclass(frozen=True)
class ServerStatus:
    running: bool  # the launcher runs and Bolt answers
    pid: int | None
    bolt_port: int
    http_port: int
    data_dir: str
    browser_url: str
    uri: str
    started_at: str | None = None
    neo4j_version: str | None = None
    kg_version: str | None = None
    heap: str | None = None  # the memory settings it was started with (`kg config` shows what a new start takes)
    pagecache: str | None = None
    database: DatabaseState | None = None  # asked only when running
    last_error: str | None = None  # while not running: why the last start failed, or why the server went away
    stopped_unexpectedly: bool = False  # last_error is about a server that ran and went away, not a failed start
    others: list[dict[str, Any]] = field(default_factory=list)  # the user's other running kg servers
    already_running: bool = False
    seconds: float | None = None  # how long start took

    @property
    def online(self) -> bool:
        return self.running and self.database is not None and self.database.online

    def to_dict(self) -> dict:
        return {**asdict(self), "online": self.online}


def is_running(settings: Settings) -> bool:
    """Cheap: the data folder's launcher is alive and its Bolt port answers (no query)."""
    server = state.running(settings.data_dir)
    return server is not None and _answers(server.get("bolt_port", settings.bolt_port))


def status(settings: Settings, database: bool = True) -> ServerStatus:
    """The truth about the data folder's server; with `database`, also its database's state from Neo4j."""
    saved = state.read(settings.data_dir)
    server = state.running(settings.data_dir)
    bolt = (server or saved).get("bolt_port", settings.bolt_port)
    http = (server or saved).get("http_port", settings.http_port)
    up = server is not None and _answers(bolt)
    others = [{k: s.get(k) for k in ("data_dir", "pid", "bolt_port", "http_port", "started_at")}
              for s in state.all_running() if Path(s["data_dir"]) != settings.data_dir]
    return ServerStatus(
        running=up,
        pid=server["pid"] if server else None,
        bolt_port=bolt,
        http_port=http,
        data_dir=str(settings.data_dir),
        browser_url=f"http://127.0.0.1:{http}/browser/",
        uri=f"bolt://127.0.0.1:{bolt}",
        started_at=(server or {}).get("started_at"),
        neo4j_version=(server or {}).get("neo4j_version"),
        kg_version=(server or {}).get("kg_version"),
        heap=(server or {}).get("heap"),
        pagecache=(server or {}).get("pagecache"),
        database=database_state(replace(settings, bolt_port=bolt)) if up and database else None,
        last_error=None if server else saved.get("last_error") or _death(settings, saved),
        stopped_unexpectedly=not server and not saved.get("failed_at")
        and bool(saved.get("last_error") or saved.get("pid")),
        others=others,
    )


def database_state(settings: Settings, name: str = DEFAULT_DATABASE) -> DatabaseState:
    """Ask Neo4j how its database is: SHOW DATABASES on `system`, then one tiny read when it says online, since a
    database Neo4j gave up on (a panic on a full disk) is still listed online, with the reason as its message."""
    local = replace(settings, uri=f"bolt://127.0.0.1:{settings.bolt_port}", uri_configured=False)
    try:
        with Store.connect(replace(local, database="system")) as system:
            rows = system.read("server/databases", name=name)
    except KgError as e:
        return DatabaseState(name, "unknown", message=str(e))
    if not rows:
        return DatabaseState(name, "unknown", message=f"Neo4j lists no database named {name!r}")
    row = rows[0]
    found = DatabaseState(name, row["status"] or "unknown", row["access"] or "", row["message"] or "")
    if found.access == "read-only" and not found.message:  # Neo4j's own answer to a disk it cannot grow into
        found = replace(found, message=disk.full_disk_note(settings) or "")
    if not found.online:
        return found
    try:
        with Store.connect(replace(local, database=name)) as store:
            store.read("server/probe")
    except KgError as e:
        return replace(found, status="failed", message=found.message or str(e))
    return found


def start(settings: Settings, timeout: float = START_TIMEOUT_S,
          on_build: Callable[[str], None] | None = None) -> ServerStatus:
    """Start the local server unless it already runs; return once its database is online, else raise.

    Starts of one data folder take turns (a file lock): two commands that find the server down do not launch two
    JVMs on one store; the second waits and then finds the first one's server running."""
    current = status(settings)
    if current.running:
        _require_online(current)
        return replace(current, already_running=True)
    began = time.monotonic()
    state.make_private_dir(settings.data_dir)
    with state.start_lock(settings.data_dir, began + timeout):
        current = status(settings)
        if current.running:
            _require_online(current)
            return replace(current, already_running=True)
        if current.pid is not None and state.read(settings.data_dir).get("stopping"):
            # a `kg server stop` is under way: waiting for that server as if it were starting would report its
            # exit as a failed start; let it go, then start anew
            while state.alive(current.pid) and time.monotonic() < began + timeout:
                time.sleep(0.2)
        elif current.pid is not None:  # alive but not answering yet: a start by an older kg is in progress
            return _wait_until_ready(settings, current.pid, began + timeout, began)
        return _launch(settings, began, timeout, on_build)


def _launch(settings: Settings, began: float, timeout: float,
            on_build: Callable[[str], None] | None) -> ServerStatus:
    for port, name, env in ((settings.bolt_port, "Bolt", "KG_BOLT_PORT"), (settings.http_port, "HTTP", "KG_HTTP_PORT")):
        if not _port_freed(port, time.monotonic() + PORT_WAIT_S):
            holder = state.holder_of(port)
            if holder:
                raise PortInUse(f"port {port} ({name}) is used by kg's server for {holder['data_dir']} "
                                f"(pid {holder['pid']}): use it with --data-dir {holder['data_dir']}, "
                                f"or set {env} for this one")
            raise PortInUse(f"port {port} ({name}) is already in use by another process: stop it or set {env}")

    classpath = build.ensure_launcher(on_build)
    data_dir = settings.data_dir
    state.make_private_tree(data_dir)
    disk.require_free_space(settings, "start Neo4j", needed_mb=min(START_MIN_FREE_MB, settings.min_free_mb))
    for folder in ("import", "plugins"):  # Neo4j reads these; kg keeps them empty
        state.make_private_dir(data_dir / folder)
    _require_no_plugins(data_dir / "plugins")
    conf = data_dir / "neo4j.conf"
    write_conf(settings, conf)
    password_mark = data_dir / "data" / "kg-password.sha256"  # inside Neo4j's store: gone when the store is
    password_digest = hashlib.sha256(settings.password.encode()).hexdigest()
    env = {
        **os.environ,
        "KG_NEO4J_HOME": str(data_dir),
        "KG_NEO4J_CONF": str(conf),
        "KG_DATABASE": DEFAULT_DATABASE,
        "KG_NEO4J_PASSWORD": settings.password,
        # Setting the password costs seconds at every start; skip it when this store already has this one.
        "KG_PASSWORD_ALREADY_SET": "1" if _read(password_mark) == password_digest else "0",
    }
    command = [build.java_executable(), "-Xms256m", f"-Xmx{settings.heap}", *JVM_FLAGS, "-cp", classpath,
               build.MAIN_CLASS]
    _keep_previous_log(data_dir)
    fd = state.open_new_private(data_dir / "server.log")
    with os.fdopen(fd, "w", encoding="utf-8") as log:
        # umask 077: every file Neo4j creates in the store and logs is owner-only too.
        process = subprocess.Popen(command, cwd=data_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True, umask=0o077)
    state.record(data_dir, process.pid, {
        "bolt_port": settings.bolt_port, "http_port": settings.http_port, "data_dir": str(data_dir),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "kg_version": _kg_version(),
        "heap": settings.heap, "pagecache": settings.pagecache,
    })
    ready = _wait_until_ready(settings, process.pid, began + timeout, began, process)
    state.make_private_dir(password_mark.parent)
    state.write_private(password_mark, password_digest)
    return ready


LAST_START = "last-start-seconds"  # how long the last start took, for the next one's announcement


def expected_start(settings: Settings) -> str:
    """What a command that has to start the server can tell its user to expect, in a few words (newuser5: a
    minute of silence after "starting the local Neo4j")."""
    try:
        seconds = float((settings.data_dir / LAST_START).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "a first start takes about a minute, longer on a busy machine"
    return f"the last start here took {seconds:.0f} s"


def stop(settings: Settings, timeout: float = STOP_TIMEOUT_S) -> bool:
    """Stop the local server; False when none was running. SIGTERM lets Neo4j shut down cleanly."""
    pid = state.live_pid(settings.data_dir)
    if pid is None:
        death = _death(settings, state.read(settings.data_dir))
        state.forget(settings.data_dir, **(_kept_error(settings.data_dir) or ({"last_error": death} if death else {})))
        return False
    ports = [state.read(settings.data_dir).get(p) for p in ("bolt_port", "http_port")]
    state.update(settings.data_dir, stopping=True)  # a start meanwhile waits for it to go (see `start`)
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and state.alive(pid):
        time.sleep(0.2)
    if state.alive(pid):
        os.kill(pid, signal.SIGKILL)
    # A JVM that halted is listed as exited a moment before its last thread lets go of the ports.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(_port_free(p) for p in ports if p):
        time.sleep(0.2)
    if state.live_pid(settings.data_dir) is None:  # else a start has recorded its new server meanwhile
        state.forget(settings.data_dir)
    return True


def restart(settings: Settings, on_build: Callable[[str], None] | None = None) -> ServerStatus:
    stop(settings)
    return start(settings, on_build=on_build)


def logs(settings: Settings, lines: int = 40) -> dict[str, list[str]]:
    """The last `lines` of the launcher's log and Neo4j's own logs, by path (the logs that exist)."""
    tails = {}
    for path in (settings.data_dir / PREVIOUS_LOG, settings.data_dir / "server.log",
                 settings.data_dir / "logs" / "neo4j.log", settings.data_dir / "logs" / "debug.log"):
        if path.exists() and not (path.name == PREVIOUS_LOG and path.is_symlink()):
            tails[str(path)] = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    return tails


def _keep_previous_log(data_dir: Path) -> None:
    """The last start's launcher log becomes PREVIOUS_LOG: when that start failed, a start after it would
    otherwise erase why (newuser4 #5: `kg server logs` showed only the next, successful start)."""
    log = data_dir / "server.log"
    if log.is_symlink():  # kg never reads or writes through one (open_new_private unlinks it)
        return
    try:
        os.replace(log, data_dir / PREVIOUS_LOG)  # replaces a symlink there, never follows it
    except FileNotFoundError:
        pass


def _require_no_plugins(folder: Path) -> None:
    """Neo4j loads every jar in its plugins folder into the server; kg's server runs Neo4j's own procedures only."""
    found = sorted(p.name for p in folder.iterdir())
    if found:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise ServerError(f"{folder} holds {shown}: kg's Neo4j loads no plugins; remove everything in that "
                          f"folder, then start again")


def _require_online(current: ServerStatus) -> None:
    db = current.database
    if db is not None and not db.online:
        reason = f": {db.message}" if db.message else ""
        raise ServerError(f"Neo4j runs (pid {current.pid}) but its `{db.name}` database is {db.status}{reason}; "
                          f"after fixing that, `kg server restart`")


def _wait_until_ready(settings: Settings, pid: int, deadline: float, began: float,
                      process: subprocess.Popen | None = None) -> ServerStatus:
    log = settings.data_dir / "server.log"
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        error = next((line for line in text.splitlines() if line.startswith("KG-ERROR ")), None)
        exited = process.poll() is not None if process else not state.alive(pid)
        if error or exited:
            if process and error:  # the launcher shuts Neo4j down cleanly after reporting; give it the time
                try:
                    process.wait(timeout=STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
            reason = error.removeprefix("KG-ERROR ") if error else "the JVM exited"
            reason = reason if len(reason) <= 400 else reason[:400] + "…"
            state.forget(settings.data_dir, last_error=reason,
                         failed_at=datetime.now(UTC).isoformat(timespec="seconds"))
            raise ServerError(f"Neo4j did not start: {reason} (see `kg server logs`)")
        ready = next((line for line in text.splitlines() if line.startswith("KG-READY")), None)
        if ready and _answers(settings.bolt_port):
            neo4j_version = ready.partition("neo4j=")[2].strip() or None
            state.update(settings.data_dir, neo4j_version=neo4j_version)
            current = status(settings)
            _require_online(current)
            seconds = round(time.monotonic() - began, 2)
            state.write_private(settings.data_dir / LAST_START, f"{seconds}\n")
            return replace(current, seconds=seconds)
        time.sleep(0.2)
    raise ServerError(f"Neo4j did not answer within {int(deadline - began)} s: see `kg server logs`")


def _death(settings: Settings, saved: dict[str, Any]) -> str | None:
    """Why a server that was not stopped by kg is gone (its pid is recorded, its process is not there)."""
    if not saved.get("pid"):
        return None
    lines = _read(settings.data_dir / "server.log") or ""
    said = [line.removeprefix("KG-DATABASE ") for line in lines.splitlines() if line.startswith("KG-DATABASE ")]
    since = f", running since {saved['started_at']}" if saved.get("started_at") else ""
    reason = (f"the server (pid {saved['pid']}{since}) stopped by itself, not by `kg server stop`"
              + (f", after: {said[-1]}" if said else ""))
    note = disk.full_disk_note(settings)
    return f"{reason}; {note}" if note else reason


def _kept_error(data_dir: Path) -> dict[str, Any]:
    saved = state.read(data_dir)
    return {k: saved[k] for k in ("last_error", "failed_at") if saved.get(k)}


def _kg_version() -> str:
    try:
        return version("kg")
    except PackageNotFoundError:
        return "unknown"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _port_freed(port: int, deadline: float) -> bool:
    """Whether `port` is free, or becomes free before `deadline`: a server that just stopped or was halted (after a
    database panic) may hold its ports for a moment after its pid is gone (seen in CI: a restart right after a halt
    found the Bolt port busy)."""
    while not _port_free(port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


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
