"""Parses cached by content hash in one SQLite file per repository, so a new process parses only what changed.

A parse is a pure function of a file's bytes, so the cache can never be stale, only incomplete. Entries are read
one by one when needed and written in one transaction per run: saving costs what the run parsed, not the size of
the repository. A cache that cannot be read (another version, a torn file) is treated as empty.
"""

from __future__ import annotations

import pickle
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.ingest.facts import ParsedFile

VERSION = 6  # bump when a ParsedFile's data changes shape


@dataclass(frozen=True, slots=True)
class CachedParse:
    """Everything derived from a file's bytes alone."""

    parsed: ParsedFile
    mentions: frozenset[str]  # identifier-like tokens, see ingest.project.mentioned_names
    bad_encoding: bool


class ParseCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: dict[str, CachedParse] = {}
        self._pending: dict[str, CachedParse] = {}
        self._db: sqlite3.Connection | None = None

    def get(self, content_hash: str) -> CachedParse | None:
        entry = self._memory.get(content_hash)
        if entry is None and self._connect():
            try:
                row = self._db.execute("SELECT entry FROM parses WHERE hash = ?", (content_hash,)).fetchone()
                entry = pickle.loads(row[0]) if row else None
            except (sqlite3.Error, pickle.UnpicklingError, AttributeError, ImportError, EOFError):
                entry = None
            if entry is not None:
                self._memory[content_hash] = entry
        return entry

    def put(self, content_hash: str, entry: CachedParse) -> None:
        self._memory[content_hash] = entry
        self._pending[content_hash] = entry

    def flush(self, keep: Iterable[str] | None = None) -> None:
        """Write what this run parsed; with `keep`, also drop every other entry (after a large change)."""
        keep = set(keep) if keep is not None else None
        if keep is not None:
            self._memory = {h: e for h, e in self._memory.items() if h in keep}
        if self._connect() and (self._pending or keep is not None):
            rows = [(h, pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL)) for h, e in self._pending.items()]
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO parses (hash, entry) VALUES (?, ?)", rows)
                if keep is not None:
                    self._db.execute("CREATE TEMP TABLE IF NOT EXISTS keep (hash TEXT PRIMARY KEY)")
                    self._db.execute("DELETE FROM keep")
                    self._db.executemany("INSERT INTO keep VALUES (?)", [(h,) for h in keep])
                    self._db.execute("DELETE FROM parses WHERE hash NOT IN (SELECT hash FROM keep)")
        self._pending.clear()

    def forget_memory(self) -> None:
        """Drop what is held in memory (entries already flushed stay on disk)."""
        self._memory = dict(self._pending)

    def _connect(self) -> bool:
        if self.path is None:
            return False
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path)
                self._db.execute("CREATE TABLE IF NOT EXISTS parses (hash TEXT PRIMARY KEY, entry BLOB NOT NULL)")
            except sqlite3.Error:  # unreadable or not a database: run without a disk cache
                self.path = None
                return False
        return True
