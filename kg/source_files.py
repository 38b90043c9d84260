"""Reading a repository's source files again at query time (dead code's value uses, the bodies signal).

Ingest refuses links, special files and huge files; a query reads the files as they are now, after any `git pull`,
so it must refuse them too: a FIFO would hang the command, a link to `/dev/zero` fill memory, a link to
`/etc/passwd` read what is not the project's.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

MAX_SOURCE_BYTES = 2_000_000  # ingest's default limit for a code file (kg.ingest.walk): nothing larger was parsed


def read_source(root: Path, path: str) -> str | None:
    """The text of `root/path` when it is a regular file inside `root`, reached through no link, of at most
    MAX_SOURCE_BYTES; else None (the caller treats it as a file it cannot read)."""
    data = read_source_bytes(root, path)
    return None if data is None else data.decode("utf-8", errors="replace")


def read_source_bytes(root: Path, path: str) -> bytes | None:
    """The bytes of `root/path` under the same rules as `read_source`."""
    full = root / path
    try:
        if os.path.realpath(full) != os.path.join(os.path.realpath(root), os.path.normpath(path)):
            return None  # a link somewhere below the root (or `..` in the path)
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # no link made meanwhile; a FIFO won't block
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            return None
        return f.read(MAX_SOURCE_BYTES + 1)[:MAX_SOURCE_BYTES]


def content_hash(data: bytes) -> str:
    """The content key ingest stores on every file it wrote (`Module.hash`) and caches parses by: blake2b, 16-byte
    digest, hex. A query compares it with a file's bytes now to tell whether the graph is behind the file."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


MAX_CONFIG_BYTES = 1_000_000  # a project's own settings file (.agent/*.yaml): far above any real one


def read_config(path: Path) -> str:
    """The text of a settings file a repository may carry (`.agent/kg.yaml`, `budget.yaml`): a link is followed
    (dotfile setups use them), but what it reaches must be a regular file of at most MAX_CONFIG_BYTES; a link to
    `/dev/zero` read until memory ran out, and one to a FIFO hung every command. OSError says what is wrong."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError("it is not a regular file (a device, a pipe or a folder): make it a plain file")
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise OSError(f"it is larger than {MAX_CONFIG_BYTES:,} bytes, and a settings file is a few lines")
    return data.decode("utf-8", errors="replace")
