"""Which local Neo4j runs where: the files that say so, and the checks that they still tell the truth.

Each data folder holds `server.pid` (the launcher JVM's pid) and `server.json` (ports, start time, versions, the
last failed start). The user-level folder `$XDG_STATE_HOME/kg/servers/` (default `~/.local/state/kg/servers/`)
holds one small file per running server naming its data folder, so any kg command, run from any folder, can list
the user's servers and say which one holds a port. A file whose process is gone is stale and ignored (and removed).

Everything kg writes here is owner-only: the files 0600, the folders 0700. kg never writes or changes permissions
through a symlink: a folder of its own that is a symlink, or is another user's, is refused.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg.errors import ServerError

MAIN_CLASS = "kg.launcher.Launcher"


def user_state_dir() -> Path:
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "kg"


def read(data_dir: Path) -> dict[str, Any]:
    """The data folder's `server.json` (also after the server stopped: it keeps the last failed start)."""
    try:
        state = json.loads((data_dir / "server.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def live_pid(data_dir: Path) -> int | None:
    """The pid of the launcher serving `data_dir`, when it still runs (a recycled pid of another program is not)."""
    try:
        pid = int((data_dir / "server.pid").read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    if not alive(pid):
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid
    return pid if MAIN_CLASS.encode() in cmdline else None


def running(data_dir: Path) -> dict[str, Any] | None:
    """The state of the server running on `data_dir`, or None when none does."""
    pid = live_pid(data_dir)
    if pid is None:
        return None
    return {**read(data_dir), "pid": pid, "data_dir": str(data_dir)}


def record(data_dir: Path, pid: int, state: dict[str, Any]) -> None:
    """Say that `pid` serves `data_dir`, in the data folder and in the user's list of servers."""
    write_private(data_dir / "server.pid", f"{pid}\n")
    write_private(data_dir / "server.json", json.dumps({**state, "pid": pid}, indent=1))
    registry = user_state_dir() / "servers"
    make_private_dir(registry)
    write_private(registry / _entry_name(data_dir), json.dumps({"data_dir": str(data_dir)}))


def update(data_dir: Path, **changes: Any) -> None:
    write_private(data_dir / "server.json", json.dumps({**read(data_dir), **changes}, indent=1))


def forget(data_dir: Path, **last: Any) -> None:
    """The server on `data_dir` is gone; `last` (e.g. the reason a start failed) stays in server.json."""
    (data_dir / "server.pid").unlink(missing_ok=True)
    (user_state_dir() / "servers" / _entry_name(data_dir)).unlink(missing_ok=True)
    if last:
        kept = {k: v for k, v in read(data_dir).items() if k in ("bolt_port", "http_port")}
        write_private(data_dir / "server.json", json.dumps({**kept, **last, "pid": None}, indent=1))
    else:
        (data_dir / "server.json").unlink(missing_ok=True)


def all_running() -> list[dict[str, Any]]:
    """Every kg server of this user that is running now, by data folder."""
    registry = user_state_dir() / "servers"
    found = []
    for entry in sorted(registry.glob("*.json")) if registry.is_dir() else []:
        try:
            data_dir = Path(json.loads(entry.read_text(encoding="utf-8"))["data_dir"])
        except (OSError, ValueError, KeyError, TypeError):
            entry.unlink(missing_ok=True)
            continue
        state = running(data_dir)
        if state is None:
            entry.unlink(missing_ok=True)
        else:
            found.append(state)
    return found


def holder_of(port: int) -> dict[str, Any] | None:
    """The running kg server listening on `port`, if one is."""
    return next((s for s in all_running() if port in (s.get("bolt_port"), s.get("http_port"))), None)


def alive(pid: int) -> bool:
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


def make_private_dir(path: Path) -> None:
    """Create `path` and its missing parents as 0700 (folders kg makes are its own); `path` itself, when it
    exists already, is narrowed to 0700 too, unless it is a symlink or another user's (then nothing is changed)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    try:
        for folder in reversed(missing):
            folder.mkdir(mode=0o700, exist_ok=True)
        # through the descriptor: what is checked is what is changed
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as e:
        what = "a symlink" if os.path.islink(path) else "not a folder"
        raise ServerError(f"{path} is {what}: kg keeps its files only in a real folder of its own; "
                          f"remove it, or give the real folder with --data-dir") from e
    try:
        owner = os.fstat(fd).st_uid
        if owner != os.geteuid():
            raise ServerError(f"{path} belongs to another user (uid {owner}): kg keeps its data only in a folder "
                              f"you own; give one with --data-dir")
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def make_private_tree(root: Path) -> None:
    """Take group and other permissions off everything under `root` (folders made by an older kg were 0755)."""
    make_private_dir(root)
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            try:
                mode = os.lstat(path).st_mode
                if mode & 0o077 and not os.path.islink(path):
                    os.chmod(path, mode & 0o700)
            except OSError:
                pass  # vanished meanwhile


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` as an owner-only file, replacing it atomically (a symlink at `path` is replaced, not
    followed). The temporary file is new and uniquely named, so threads of one process do not collide."""
    import tempfile  # with random and shutil: only a write pays for them

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # O_EXCL, 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def open_new_private(path: Path) -> int:
    """A fresh owner-only file at `path` for writing: whatever was there (a symlink or hard link to another file
    included) is unlinked first, never truncated through."""
    path.unlink(missing_ok=True)
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)


@contextmanager
def start_lock(data_dir: Path, deadline: float) -> Iterator[None]:
    """One start at a time per data folder, across processes and threads (each call opens its own descriptor,
    and flock locks belong to it). Waits until `deadline` (time.monotonic), then raises. Not `filelock`: it opens
    its lock file with O_TRUNC and follows a symlink there."""
    fd = os.open(data_dir / "start.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ServerError(f"another kg command is starting the server for {data_dir} and did not "
                                      f"finish in time: see `kg server logs`, then run the command again") from None
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)  # releases the lock


def _entry_name(data_dir: Path) -> str:
    return hashlib.sha256(str(data_dir).encode()).hexdigest()[:16] + ".json"
