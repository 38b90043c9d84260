"""The one folder a run may write to. Every tool path goes through `resolve`, so no tool can escape it.

Refused: empty and absolute paths, drive letters, `..`, and anything that resolves outside the root once symlinks
are followed (a link inside the workspace pointing out of it). The final component is opened with O_NOFOLLOW, so a
symlink planted between the check and the write is not followed either.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

from kg.agent.errors import WorkspaceError

MAX_READ_CHARS = 6000


class Workspace:
    def __init__(self, root: Path) -> None:
        root = Path(root).expanduser()
        if root.exists() and not root.is_dir():
            raise WorkspaceError(f"workspace {root} is a file: give a folder (it is created when missing)")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WorkspaceError(f"cannot create workspace {root}: {e.strerror or e}: give a folder you can "
                                 "write to") from e
        self.root = root.resolve()

    @property
    def default_repo(self) -> str:
        """The workspace's repository name in the graph: its folder name plus a short hash of its absolute path,
        so two workspaces that happen to share a folder name never overwrite each other's modules."""
        return f"ws-{self.root.name}-{hashlib.sha1(str(self.root).encode()).hexdigest()[:6]}"

    def resolve(self, path: str) -> tuple[str, Path]:
        """(normalised relative path, absolute path) for a path a tool was given, or WorkspaceError."""
        if not isinstance(path, str) or not path.strip():
            raise WorkspaceError("path is empty: give a path relative to the workspace")
        if "\x00" in path or "\\" in path:
            raise WorkspaceError(f"path {path!r} has a NUL or backslash: use a plain posix relative path")
        rel = PurePosixPath(path.strip())
        if rel.is_absolute() or re.match(r"^[A-Za-z]:", path):
            raise WorkspaceError(f"path {path!r} is absolute: give a path relative to the workspace")
        if ".." in rel.parts:
            raise WorkspaceError(f"path {path!r} leaves the workspace (`..`)")
        target = (self.root / rel).resolve()
        if target != self.root and self.root not in target.parents:
            raise WorkspaceError(f"path {path!r} resolves outside the workspace (a symlink escape)")
        if target == self.root:
            raise WorkspaceError(f"path {path!r} is the workspace itself, not a file")
        return rel.as_posix(), self.root / rel

    def write(self, path: str, content: str) -> str:
        rel, target = self.resolve(path)
        try:  # encoded before anything is touched: a failed write must not leave an empty file that counts as done
            data = content.encode("utf-8")
        except UnicodeEncodeError as e:
            raise WorkspaceError(f"content for {rel} is not valid text ({e.reason} at character {e.start})") from e
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a parent is an existing file
            raise WorkspaceError(f"cannot create the folder of {rel}: {e.strerror or e}") from e
        rel, target = self.resolve(path)  # again: the new parents must not have become links out
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(target, flags, 0o644)
        except OSError as e:
            raise WorkspaceError(f"cannot write {rel}: {e.strerror or e}") from e
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return rel

    def read(self, path: str, limit: int = MAX_READ_CHARS) -> tuple[str, str, bool]:
        """(relative path, text cut to `limit` characters, whether it was cut)."""
        rel, target = self.resolve(path)
        if not target.is_file():
            raise WorkspaceError(f"{rel} does not exist in the workspace")
        text = target.read_text(encoding="utf-8", errors="replace")
        return rel, text[:limit], len(text) > limit

    def exists(self, path: str) -> bool:
        try:
            return self.resolve(path)[1].is_file()
        except WorkspaceError:
            return False
