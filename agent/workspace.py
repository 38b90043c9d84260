"""The one folder a run may write to. Every tool path goes through `resolve`, so no tool can escape it.

Refused: empty and absolute paths, drive letters, `..`, anything that resolves outside the root once symlinks are
followed (a link inside the workspace pointing out of it), and control files: whatever git, kg or a shell would
read as instructions rather than as project code — `.git/` (config, hooks), `.kg/` (the graph's data and password),
`.agent/` (kg's project file), `.agent-memory/` (what `kg memory import` restores as a person's decisions),
`.gitattributes` (filter drivers), `.gitmodules`, `.lfsconfig`, `.gitconfig`, `.envrc` and Mercurial's `.hg/`.
Names are compared the way some file system could fold them (case, Unicode compatibility forms, the invisible
characters HFS+ ignores, NTFS's trailing dots and spaces, `::$DATA` streams and 8.3 short names such as `GIT~1` or
`GITATT~1`), and both as given and once symlinks are followed, so `.GIT/config`, `./.git/`, `.git./`, `.g\u200cit`
and a link to `.git` are all refused.

Writes open the final component with O_NOFOLLOW and without truncating, check what was opened (a regular file with
no other hard link, so a link to a file outside is never written through), then replace its content. Content over
MAX_WRITE_BYTES is refused before anything is touched.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import unicodedata
from pathlib import Path, PurePosixPath

from kg.agent.errors import WorkspaceError
from kg.ingest.walk import DEFAULT_MAX_DOCUMENT_BYTES

from kg.errors import shorten

MAX_READ_CHARS = 6000
MAX_WRITE_BYTES = DEFAULT_MAX_DOCUMENT_BYTES  # 1 MB: kg ingests nothing larger as a document (code: 2 MB)

# Folded name → why it is refused.
CONTROL_NAMES = {
    ".git": "git's repository folder (config, hooks)",
    ".kg": "kg's data folder",
    ".agent": "kg's project settings",
    ".gitattributes": "git attributes (filter and diff drivers)",
    ".gitmodules": "git submodules",
    ".gitconfig": "git configuration",
    ".lfsconfig": "git-lfs configuration",
    ".envrc": "a shell environment file that direnv runs",
    ".agent-memory": "project memory that `kg memory import` restores as written (decisions a person confirmed)",
    ".hg": "Mercurial's repository folder (hgrc, hooks)",
}
# Characters HFS+ ignores in names (git's own list for core.protectHFS) and other invisible format characters.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")
# NTFS 8.3 names of the control names: the first six characters after the dot (`GIT~1` is `.git`, `GITATT~1` is
# `.gitattributes`), the whole name, and the hashed forms Windows falls back to (git's own list).
_SHORT_STEMS = sorted({n.lstrip(".")[:6] for n in CONTROL_NAMES} | {n.lstrip(".") for n in CONTROL_NAMES}
                      | {"gi7d29", "gi7eba"})
_SHORT_NAME = re.compile(rf"^(?:{'|'.join(map(re.escape, _SHORT_STEMS))})~\d+$")


def fold(name: str) -> str:
    """A path component as a file system that folds names might see it."""
    folded = _INVISIBLE.sub("", unicodedata.normalize("NFKC", name)).casefold()
    return folded.split(":", 1)[0].rstrip(" .")  # NTFS: `.git::$INDEX_ALLOCATION`, `.git.` and `.git ` are `.git`


def control_file(parts: tuple[str, ...]) -> str | None:
    """Why a relative path is a control file, or None when it is project content."""
    for part in parts:
        folded = fold(part)
        if folded in CONTROL_NAMES:
            return f"`{part[:40]}` is {CONTROL_NAMES[folded]}"
        if _SHORT_NAME.match(folded):
            return f"`{part[:40]}` is a short name of a control folder"
    return None


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
            raise WorkspaceError(f"path {shorten(path)} has a NUL or backslash: use a plain posix relative path")
        try:  # a lone surrogate would make a file whose name is not UTF-8: no graph or report can carry it
            path.encode("utf-8")
        except UnicodeEncodeError as e:
            raise WorkspaceError(f"path {shorten(path)} is not valid text (a lone surrogate at character "
                                 f"{e.start}): use UTF-8 names") from e
        rel = PurePosixPath(path.strip())
        if rel.is_absolute() or re.match(r"^[A-Za-z]:", path):
            raise WorkspaceError(f"path {shorten(path)} is absolute: give a path relative to the workspace")
        if ".." in rel.parts:
            raise WorkspaceError(f"path {shorten(path)} leaves the workspace (`..`)")
        if problem := control_file(rel.parts):
            raise WorkspaceError(f"path {shorten(path)} is refused: {problem}; write project files only")
        target = (self.root / rel).resolve()
        if target != self.root and self.root not in target.parents:
            raise WorkspaceError(f"path {shorten(path)} resolves outside the workspace (a symlink escape)")
        if target == self.root:
            raise WorkspaceError(f"path {shorten(path)} is the workspace itself, not a file")
        if problem := control_file(target.relative_to(self.root).parts):
            raise WorkspaceError(f"path {shorten(path)} is refused: it leads through a symlink to a control file "
                                 f"({problem})")
        return rel.as_posix(), self.root / rel

    def write(self, path: str, content: str) -> str:
        rel, target = self.resolve(path)
        if len(content) > MAX_WRITE_BYTES:  # before encoding: a character is at least one byte
            raise WorkspaceError(_too_large(rel, len(content)))
        try:  # encoded before anything is touched: a failed write must not leave an empty file that counts as done
            data = content.encode("utf-8")
        except UnicodeEncodeError as e:
            raise WorkspaceError(f"content for {rel} is not valid text ({e.reason} at character {e.start})") from e
        if len(data) > MAX_WRITE_BYTES:
            raise WorkspaceError(_too_large(rel, len(data)))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a parent is an existing file
            raise WorkspaceError(f"cannot create the folder of {rel}: {e.strerror or e}") from e
        rel, target = self.resolve(path)  # again: the new parents must not have become links out
        try:
            folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as e:
            raise WorkspaceError(f"cannot write {rel}: {e.strerror or e}") from e
        try:
            mode = self._replaceable(folder, target.name, rel)
            self._replace(folder, target.name, data, mode, rel)
        finally:
            os.close(folder)
        return rel

    @staticmethod
    def _replaceable(folder: int, name: str, rel: str) -> int:
        """The mode the new content gets: the old file's, when there is one and it may be replaced."""
        try:
            old = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return 0o644
        except OSError as e:
            raise WorkspaceError(f"cannot write {rel}: {e.strerror or e}") from e
        if not stat.S_ISREG(old.st_mode):
            raise WorkspaceError(f"cannot write {rel}: it is not a regular file")
        if old.st_nlink > 1:
            raise WorkspaceError(f"cannot write {rel}: it is hard-linked to {old.st_nlink - 1} other name(s), "
                                 "possibly outside the workspace")
        return stat.S_IMODE(old.st_mode)

    @staticmethod
    def _replace(folder: int, name: str, data: bytes, mode: int, rel: str) -> None:
        """Write `data` beside `name` and rename it over `name`: a full disk or a crash mid-write leaves the old
        content whole (writing in place cut a file at 4 KB and lost its old version)."""
        temporary = f".{name}.kg-{os.getpid()}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode,
                         dir_fd=folder)
        except OSError as e:
            raise WorkspaceError(f"cannot write {rel}: {e.strerror or e}") from e
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except OSError as e:
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            full = " (the disk is full: free some space, then run again)" if e.errno == errno.ENOSPC else ""
            raise WorkspaceError(f"cannot write {rel}: {e.strerror or e}{full}; its old content is kept") from e

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


def _too_large(rel: str, size: int) -> str:
    return (f"content for {rel} is {size / 1e6:.1f} MB; a file may be at most {MAX_WRITE_BYTES / 1e6:g} MB "
            "(kg does not ingest larger ones): split it into smaller files")
