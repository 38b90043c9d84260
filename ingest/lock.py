"""One ingest of a repository at a time: concurrent runs on the same graph and repository wait their turn.

Two ingests of one repository would each compare the tree with what the graph held when they started and write
over each other (and deadlock on the same nodes). An advisory file lock per (graph URI, database, repository),
taken for the whole run, serializes them: the second then sees the first's result and writes only what is left.
The lock is the kernel's (flock through `filelock`), so a killed run releases it; the file lives in kg's cache
folder, named by a digest, so no repository name ever becomes a path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from kg.errors import InputError
from kg.server.build import cache_root
from kg.settings import Settings

WAIT_SECONDS = 900.0  # a first ingest of a large repository can take minutes


def lock_path(settings: Settings, repo: str) -> Path:
    digest = hashlib.sha256(f"{settings.uri}\n{settings.database}\n{repo}".encode()).hexdigest()[:24]
    return cache_root() / "locks" / f"ingest-{digest}.lock"


@contextmanager
def repo_lock(settings: Settings, repo: str, wait: float = WAIT_SECONDS) -> Iterator[None]:
    path = lock_path(settings, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(path, timeout=wait):
            yield
    except Timeout as e:
        raise InputError(f"another kg ingest of {repo} has held its lock for {wait:g} s ({path}): wait for it to "
                         "finish, or stop it") from e
