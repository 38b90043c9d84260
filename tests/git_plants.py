"""Repositories whose git config makes a read run a program: one per way git can be told to, for the tests that
show kg's own git calls run none of them.

Each plant writes a script that touches a marker file, and wires it into a fresh repository (one committed Python
file, then edited so the working tree differs from HEAD). `live` is a plain git command a naive tool might run
there: the tests first show it does create the marker, so every plant is known to be armed.
"""

from __future__ import annotations

import os
import pty
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SOURCE = "def price(x):\n    return x * 2\n\n\ndef total(xs):\n    return sum(price(x) for x in xs)\n"
EDITED = SOURCE.replace("x * 2", "x * 3")
_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT")


def sh(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_GIT_ENV_DROP)}
    env.update({"GIT_AUTHOR_NAME": "kg", "GIT_AUTHOR_EMAIL": "kg@example.invalid", "GIT_COMMITTER_NAME": "kg",
                "GIT_COMMITTER_EMAIL": "kg@example.invalid"})
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check, env=env,
                          stdin=subprocess.DEVNULL)


@dataclass
class Plant:
    name: str
    root: Path
    marker: Path
    live: tuple[str, ...]  # git arguments that run the planted program when no hardening is in place


def _script(path: Path, marker: Path, tail: str = "cat") -> Path:
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\n{tail}\n")
    path.chmod(0o755)
    return path


def _repo(root: Path, extra: dict[str, str] | None = None) -> None:
    root.mkdir(parents=True)
    sh(root, "init", "-q")
    (root / "app.py").write_text(SOURCE)
    for name, text in (extra or {}).items():
        (root / name).write_text(text)
    sh(root, "add", "-A")
    sh(root, "commit", "-q", "-m", "first")


def _edit(root: Path) -> None:
    (root / "app.py").write_text(EDITED)
    os.utime(root / "app.py", (1_000_000_000, 1_000_000_000))  # stat differs from the index: git must re-read it


def _fsmonitor(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    sh(root, "config", "core.fsmonitor", str(_script(scripts / "fsmonitor", marker, "echo")))
    return ("diff", "HEAD")


def _stale_stat(root: Path) -> None:
    """An unchanged tracked file whose mtime differs from the index: a refresh must rewrite the index (which fires
    post-index-change), whatever the timing."""
    (root / "notes.txt").write_text("unchanged\n")
    sh(root, "add", "notes.txt")
    sh(root, "commit", "-q", "-m", "notes")
    os.utime(root / "notes.txt", (1_100_000_000, 1_100_000_000))


def _hook(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    _stale_stat(root)
    _script(root / ".git" / "hooks" / "post-index-change", marker, "true")
    hooks = scripts / "hooks"
    hooks.mkdir()
    _script(hooks / "post-index-change", marker, "true")
    return ("status",)  # refreshes and rewrites the index, which fires the hook


def _hooks_path(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    _stale_stat(root)
    hooks = scripts / "hooks"
    hooks.mkdir()
    _script(hooks / "post-index-change", marker, "true")
    sh(root, "config", "core.hooksPath", str(hooks))
    return ("status",)


def _external_diff(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    sh(root, "config", "diff.external", str(_script(scripts / "extdiff", marker, "true")))
    return ("diff", "HEAD")


def _diff_driver_command(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root, {".gitattributes": "*.py diff=evil\n"})
    sh(root, "config", "diff.evil.command", str(_script(scripts / "driver", marker, "true")))
    return ("diff", "HEAD")


def _textconv(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root, {".gitattributes": "*.py diff=evil\n"})
    sh(root, "config", "diff.evil.textconv", str(_script(scripts / "textconv", marker, 'cat "$1"')))
    return ("diff", "HEAD")


def _clean_filter(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root, {".gitattributes": "*.py filter=evil\n"})
    sh(root, "config", "filter.evil.clean", str(_script(scripts / "clean", marker)))
    sh(root, "config", "filter.evil.required", "true")
    return ("diff", "HEAD")


def _process_filter(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root, {".gitattributes": "*.py filter=evil\n"})
    sh(root, "config", "filter.evil.process", str(_script(scripts / "process", marker, "exit 1")))
    return ("diff", "HEAD")


def _info_attributes(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    """The attribute in `.git/info/attributes` (never in the tree) and the filter in an included file."""
    _repo(root)
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("*.py filter=sneaky\n")
    included = scripts / "included.gitconfig"
    included.write_text(f"[filter \"sneaky\"]\n\tclean = {_script(scripts / 'clean', marker)}\n\trequired = true\n")
    sh(root, "config", "include.path", str(included))
    return ("diff", "HEAD")


def _include_if(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    included = scripts / "conditional.gitconfig"
    included.write_text(f"[core]\n\tfsmonitor = {_script(scripts / 'fsmonitor', marker, 'echo')}\n")
    sh(root, "config", f"includeIf.gitdir:{root}/.git.path", str(included))
    return ("diff", "HEAD")


def _pager(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    _repo(root)
    pager = _script(scripts / "pager", marker)
    sh(root, "config", "core.pager", str(pager))
    sh(root, "config", "pager.diff", str(pager))
    return ("-p", "diff", "HEAD")  # git pages only to a terminal: arm_check runs it on one


def _promisor_fetch(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    """A partial clone whose missing blob git would fetch through an `ext::` remote, which runs a command."""
    _repo(root)
    blob = sh(root, "rev-parse", "HEAD:app.py").stdout.strip()
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    sh(root, "config", "core.repositoryformatversion", "1")
    sh(root, "config", "extensions.partialClone", "origin")
    sh(root, "config", "remote.origin.promisor", "true")
    sh(root, "config", "remote.origin.url", f"ext::sh -c touch% {marker}")
    sh(root, "config", "protocol.ext.allow", "always")
    return ("diff", "HEAD")


def _submodule(root: Path, marker: Path, scripts: Path) -> tuple[str, ...]:
    """An embedded repository whose own config has a clean filter: checking it for changes runs git inside it."""
    _repo(root)
    sub = root / "vendor"
    _repo(sub, {".gitattributes": "*.py filter=evil\n"})
    sh(sub, "config", "filter.evil.clean", str(_script(scripts / "clean", marker)))
    sh(root, "add", "vendor")
    sh(root, "commit", "-q", "-m", "vendor")
    _edit(sub)
    return ("diff", "HEAD")


PLANTS: dict[str, Callable[[Path, Path, Path], tuple[str, ...]]] = {
    "fsmonitor": _fsmonitor,
    "hooks": _hook,
    "hooks_path": _hooks_path,
    "external_diff": _external_diff,
    "diff_driver_command": _diff_driver_command,
    "textconv": _textconv,
    "clean_filter": _clean_filter,
    "process_filter": _process_filter,
    "info_attributes_and_include": _info_attributes,
    "include_if": _include_if,
    "pager": _pager,
    "promisor_fetch": _promisor_fetch,
    "submodule": _submodule,
}


def plant(name: str, base: Path) -> Plant:
    """A fresh repository armed with plant `name` under `base`, its working tree edited."""
    root, scripts, marker = base / name / "repo", base / name / "scripts", base / name / "MARKER"
    scripts.mkdir(parents=True)
    live = PLANTS[name](root, marker, scripts)
    _edit(root)
    return Plant(name, root, marker, live)


def on_tty(argv: list[str], env: dict[str, str] | None = None, timeout: float = 120,
           cwd: Path | None = None) -> tuple[int, str]:
    """Run `argv` with its stdout and stderr on a pseudo-terminal, as a person's shell would (a pager only starts on
    a terminal); returns the exit code and what it printed."""
    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO once the terminal's last writer is gone
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    # A person's terminal names its type: without TERM (CI run under `env -i`) the pager warns that the terminal is
    # not fully functional and waits for RETURN until the timeout.
    env = {**(os.environ if env is None else env)}
    env.setdefault("TERM", "xterm")
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, timeout=timeout,
                              cwd=cwd)
    finally:
        os.close(slave)
    reader.join(10)
    os.close(master)
    return done.returncode, b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")


def arm_check(p: Plant) -> bool:
    """Whether plain git, run as a naive tool would, runs the planted program (then the marker is removed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    on_tty(["git", "-C", str(p.root), *p.live], env=env)
    fired = p.marker.exists()
    if fired:
        p.marker.unlink()
    return fired
