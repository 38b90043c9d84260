"""Parses cached by content hash in one SQLite file per repository, so a new process parses only what changed.

A parse is a pure function of a file's bytes and of the code that parses them: kg's front ends and the tree-sitter
grammars. The cache file's name carries a fingerprint of that code (`parser_fingerprint`), so an upgrade of kg or of a
grammar opens a new, empty cache instead of serving parses the new code would not make; with both fixed, an entry
can never be stale, only missing. Entries are read
one by one when needed and written in one transaction per run: saving costs what the run parsed, not the size of
the repository. A cache that cannot be read (another version, a torn file) is treated as empty.

Entries are pickles, and unpickling runs code named by the data, so the cache must only ever hold what kg itself
wrote: it lives in the user's own cache folder (`project_cache_dir`, 0700), never in the project, because a
repository can commit any file under its own tree (`.kg/cache/` included) and both the file name and the keys are
computable by whoever writes it.

The same file keeps the repository's compact project index (`files`: one row per code file, a column per part, see
ingest.project.RepoState; `tallies`: the project-wide tables kept up to date from them), so a new process can update
one file without loading every parse, and the stat and content hash of every file (`stats`, see walk.stat_key), so
it reads only the files whose stat changed.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import pickle
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.ingest.facts import ParsedFile, pickled_by_fields

from kg import installed, queries
from kg.errors import ServerError
from kg.server.build import cache_root
from kg.server.state import make_private_dir

# The distributions whose code runs in a parse besides kg's own: the tree-sitter runtime and every grammar.
PARSING_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-python", "tree-sitter-javascript", "tree-sitter-typescript",
                         "tree-sitter-go")
_INGEST_CODE = Path(__file__).resolve().parent
_INGEST_WRITES = Path(queries.__file__).resolve().parent / "ingest"  # queries/ingest/*.cypher


@functools.cache
def parser_fingerprint() -> str:
    """16 hex digits that change whenever the code shaping a parse, or what the graph keeps of it, may have: the
    text of every module of kg.ingest (front ends, facts, the walk's hashing; hashing the whole package costs ~10 ms
    once a process and needs no list to keep in step with the imports), the ingest's write queries (a fix to
    `depends_on_put.cypher` alone must reach graphs written before it) and the installed version of each parsing
    distribution."""
    return fingerprint(_INGEST_CODE, {name: _installed(name) for name in PARSING_DISTRIBUTIONS}, _INGEST_WRITES)


def fingerprint(code: Path, versions: dict[str, str], writes: Path | None = None) -> str:
    digest = hashlib.sha256()
    for path in sorted(code.rglob("*.py")):
        digest.update(path.relative_to(code).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for path in sorted(writes.rglob("*.cypher")) if writes else ():
        digest.update(b"writes/" + path.relative_to(writes).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name, version in sorted(versions.items()):
        digest.update(f"{name}=={version}\0".encode())
    return digest.hexdigest()[:16]


def _installed(name: str) -> str:
    found = installed.version(name)
    if found is None:  # not a plain `.dist-info` install: ask importlib.metadata
        from importlib import metadata

        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            found = "absent"
    return found


def project_cache_dir(project: Path) -> Path:
    """The folder of one project's parse caches in the user's own cache folder (`KG_CACHE_DIR`, else
    `~/.cache/kg`): `parses/<digest of the project's real path>`, so two checkouts never share one, and out of every
    repository's reach (see the module's docstring)."""
    real = os.fsencode(Path(project).resolve())
    return cache_root() / "parses" / hashlib.sha256(real).hexdigest()[:16]


def cache_path(cache_dir: Path, repo: str) -> Path:
    """The repository's cache file for today's parsing code; files made by other code for the same repository are
    deleted (they can never be read again, and a repository ingested across many upgrades would pile them up)."""
    current = cache_dir / f"parse-{parser_fingerprint()}-{repo}.sqlite"
    earlier = re.compile(rf"parse-(?:[0-9a-f]{{16}}|v\d+)-{re.escape(repo)}\.sqlite")
    if cache_dir.is_dir():
        for path in cache_dir.iterdir():
            if path != current and earlier.fullmatch(path.name):
                path.unlink(missing_ok=True)
    return current


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class CachedParse:
    """Everything derived from a file's bytes alone."""

    parsed: ParsedFile
    mentions: frozenset[str]  # identifier-like tokens, see ingest.project.mentioned_names
    bad_encoding: bool
    span_hashes: dict[str, str]  # symbol qname → walk.span_hash of its lines (Symbol.hash in the graph)


# The index's per-file columns besides the facts, read on demand (see ingest.project.RepoState).
INDEX_COLUMNS = ("mentions", "flows", "reads")


def _column(name: str) -> str:
    if name not in INDEX_COLUMNS:
        raise ValueError(f"no index column {name!r}")
    return name


def unpickled(blob: bytes) -> object:
    """`pickle.loads` with the cyclic collector paused: a parse is tens of thousands of small tuples and facts,
    none of them garbage, and the collector would otherwise scan them again and again (about half the load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(blob)
    finally:
        if enabled:
            gc.enable()


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
                entry = unpickled(row[0]) if row else None
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

    def index(self) -> dict[str, object]:
        """The saved project index's facts column (path → ingest.project.FileFacts), empty when there is none or it
        cannot be read; the other columns are read on demand (`index_value`, `index_column`)."""
        if not self._connect():
            return {}
        try:
            return {path: unpickled(row) for path, row in self._db.execute("SELECT path, facts FROM files")}
        except (sqlite3.Error, pickle.UnpicklingError, AttributeError, ImportError, EOFError, TypeError):
            return {}

    def index_value(self, column: str, path: str) -> object | None:
        """One file's value of an index column (None when it has none)."""
        row = self._index_read(f"SELECT {_column(column)} FROM files WHERE path = ?", (path,))
        return unpickled(row[0][0]) if row and row[0][0] is not None else None

    def index_column(self, column: str) -> dict[str, object]:
        """Every file's value of an index column (files without one left out)."""
        rows = self._index_read(f"SELECT path, {_column(column)} FROM files WHERE {_column(column)} IS NOT NULL")
        return {path: unpickled(blob) for path, blob in rows}

    def index_tally(self, tally: str) -> bool:
        """Whether a project-wide tally is saved with the index (see `save_index`)."""
        return bool(self._index_read("SELECT 1 FROM tallies WHERE tally = ?", (tally,)))

    def index_tally_group(self, tally: str, key: str) -> dict | None:
        """One group of a saved tally (ingest.languages.core.Tally), None when it has none."""
        row = self._index_read("SELECT entry FROM tally_groups WHERE tally = ? AND key = ?", (tally, key))
        return unpickled(row[0][0]) if row else None  # type: ignore[return-value]

    def _index_read(self, sql: str, params: tuple = ()) -> list[tuple]:
        if not self._connect():
            return []
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error:
            return []

    def save_index(self, facts: dict[str, object], deleted: Iterable[str], whole: bool = False,
                   columns: dict[str, dict[str, object | None]] | None = None,
                   tallies: dict[str, tuple[bool, dict[str, dict]]] | None = None) -> None:
        """Write the index rows of the files that changed (`facts`, and the `columns` values known to have changed:
        path → value, None for none) and drop those of `deleted`, with the project-wide tallies kept up to date
        beside them (name → (whether these are all its groups, key → group; an empty group is dropped)), in one
        transaction; `whole`: this is all of the index (every other row and tally goes)."""
        if not self._connect():
            return
        dump = functools.partial(pickle.dumps, protocol=pickle.HIGHEST_PROTOCOL)
        with self._db:
            if whole:
                self._db.execute("DELETE FROM files")
                self._db.execute("DELETE FROM tallies")
                self._db.execute("DELETE FROM tally_groups")
            self._db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in deleted])
            self._db.executemany("INSERT INTO files (path, facts) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET "
                                 "facts = excluded.facts", [(p, dump(f)) for p, f in facts.items()])
            for column, values in (columns or {}).items():
                self._db.executemany(f"UPDATE files SET {_column(column)} = ? WHERE path = ?",
                                     [(None if v is None else dump(v), p) for p, v in values.items()])
            for tally, (complete, groups) in (tallies or {}).items():
                if complete:
                    self._db.execute("DELETE FROM tally_groups WHERE tally = ?", (tally,))
                self._db.execute("INSERT OR IGNORE INTO tallies (tally) VALUES (?)", (tally,))
                self._db.executemany("DELETE FROM tally_groups WHERE tally = ? AND key = ?",
                                     [(tally, k) for k, g in groups.items() if not g])
                self._db.executemany("INSERT OR REPLACE INTO tally_groups (tally, key, entry) VALUES (?, ?, ?)",
                                     [(tally, k, dump(g)) for k, g in groups.items() if g])

    def stats(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """The saved stat of each file whose content hash is known (path → (walk.stat_key, hash)), so a new process
        reads only the files whose stat changed; empty when there are none or they cannot be read."""
        if not self._connect():
            return {}
        try:
            return {path: ((size, mtime, ctime, ino, dev), digest) for path, size, mtime, ctime, ino, dev, digest
                    in self._db.execute("SELECT path, size, mtime_ns, ctime_ns, ino, dev, hash FROM stats")}
        except sqlite3.Error:
            return {}

    def save_stats(self, rows: dict[str, tuple[tuple[int, ...], str]], deleted: Iterable[str]) -> None:
        if not self._connect() or not (rows or deleted):
            return
        try:
            with self._db:
                self._db.executemany("DELETE FROM stats WHERE path = ?", [(p,) for p in deleted])
                self._db.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?, ?, ?, ?, ?, ?)",
                                     [(p, *key, digest) for p, (key, digest) in rows.items()])
        except sqlite3.Error:  # another process holds the file (a concurrent run): the next run hashes again
            pass

    def forget_memory(self) -> None:
        """Drop what is held in memory (entries already flushed stay on disk)."""
        self._memory = dict(self._pending)

    def _connect(self) -> bool:
        if self.path is None:
            return False
        if self._db is None:
            try:
                make_private_dir(self.path.parent)  # parses of private code are as private as the code
                self._db = sqlite3.connect(self.path)
                self._db.execute("CREATE TABLE IF NOT EXISTS parses (hash TEXT PRIMARY KEY, entry BLOB NOT NULL)")
                self._db.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, facts BLOB NOT NULL, "
                                 f"{', '.join(f'{c} BLOB' for c in INDEX_COLUMNS)})")
                self._db.execute("CREATE TABLE IF NOT EXISTS tallies (tally TEXT PRIMARY KEY)")
                self._db.execute("CREATE TABLE IF NOT EXISTS tally_groups (tally TEXT, key TEXT, entry BLOB NOT NULL, "
                                 "PRIMARY KEY (tally, key))")
                self._db.execute("CREATE TABLE IF NOT EXISTS stats (path TEXT PRIMARY KEY, size INTEGER, mtime_ns "
                                 "INTEGER, ctime_ns INTEGER, ino INTEGER, dev INTEGER, hash TEXT NOT NULL)")
            except (OSError, ServerError, sqlite3.Error):  # no (real) folder, unreadable, not a database: no disk cache
                self.path = None
                return False
        return True
