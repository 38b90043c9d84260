"""Free space for the local graph: a write phase (an ingest, an agent turn) is refused before the disk holding the
local server's data folder runs short, since Neo4j cannot finish a commit on a full disk.

`require_free_space` is the one check; the ingest pipeline and the agent call it before they write. A graph at a
configured URI lives on a disk kg cannot see, so it is never refused here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kg.errors import DiskFull
from kg.settings import Settings

MB = 1024 * 1024
FULL_MB = 64  # below this a failed write is put down to a full disk (Neo4j grows its files by megabytes)


def free_mb(path: Path) -> int:
    """Free megabytes on the filesystem holding `path` (or its nearest existing parent)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free // MB


def require_free_space(settings: Settings, doing: str = "write to the graph", needed_mb: int | None = None) -> None:
    """Raise DiskFull when the local server's disk has less than `needed_mb` (default: the min_free_mb setting)."""
    if settings.uri_configured:
        return
    needed = settings.min_free_mb if needed_mb is None else needed_mb
    free = free_mb(settings.data_dir)
    if free < needed:
        raise DiskFull(f"only {free} MB free on the disk holding {settings.data_dir}, kg needs {needed} MB to "
                       f"{doing} safely: free some space (or lower KG_MIN_FREE_MB)")


def full_disk_note(settings: Settings) -> str | None:
    """What to tell the user when the local server's disk is (nearly) full, else None."""
    if settings.uri_configured:
        return None
    free = free_mb(settings.data_dir)
    if free >= FULL_MB:
        return None
    return (f"the disk holding {settings.data_dir} is full ({free} MB free): free some space, "
            f"then `kg server restart`")


def explain_database_error(settings: Settings, neo4j_message: str) -> str:
    """One line for a Neo4j failure (a Neo4j DatabaseError), naming a full disk when that is the reason."""
    first = neo4j_message.strip().splitlines()[0] if neo4j_message.strip() else "no reason given"
    note = full_disk_note(settings)
    if note:
        return f"Neo4j could not write: {note}; what was committed before is kept"
    return f"Neo4j failed: {first}: check free disk space and `kg server logs`"
