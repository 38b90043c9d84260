"""The file-to-file ties the graph signal expands along, read once per repository revision in a warm process.

`retrieve/neighbourhood` asks, for the seed files of one task, every CALLS/IMPORTS/INHERITS edge leaving or
entering them; on django that walks ~25,000 edges per task. A process that answers many tasks (MCP, the agent)
keeps instead the whole repository's table of ties per pair of files (`retrieve/repo_ties`, ~25,000 rows on
django, seconds to read) and answers the same rows from memory. The table is read in the background from the
second task for the same repository revision (the repository's last ingest), so a one-shot `kg context` never
pays for it and no task waits for it; an ingest changes the revision and the table is read again.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kg.errors import KgError
from kg.store import Store

Row = tuple[str, str, str, int]  # src, dst, type, count


@dataclass
class _Table:
    version: object
    out: dict[str, list[Row]] = field(default_factory=lambda: defaultdict(list))  # by src: edges leaving it
    into: dict[str, list[Row]] = field(default_factory=lambda: defaultdict(list))  # by dst: edges entering it

    def rows(self, paths: list[str]) -> list[dict[str, Any]]:
        """What `retrieve/neighbourhood` answers for `paths`: a tie between two of them counted from both ends."""
        counts: dict[tuple[str, str, str], int] = defaultdict(int)
        for path in paths:
            for src, dst, kind, n in self.out.get(path, ()):
                counts[src, dst, kind] += n
            for src, dst, kind, n in self.into.get(path, ()):
                counts[src, dst, kind] += n
        return [{"src": s, "dst": d, "type": t, "n": n} for (s, d, t), n in counts.items()]


_tables: dict[str, _Table] = {}
_asked: dict[str, object] = {}  # repo → the revision a task was last answered for
_loading: dict[str, threading.Thread] = {}  # repo → the thread reading its table
_lock = threading.Lock()


def neighbourhood(store: Store, repo: str, paths: list[str], version: object = None) -> list[dict[str, Any]]:
    """The ties of `paths` (rows of `retrieve/neighbourhood`): from the repository's table when this process has
    it for this revision, else from the graph. The second task of a revision starts reading the table in the
    background (seconds on django), so no task waits for it. `version` None (unknown) always asks the graph."""
    if version is None:
        return store.read("retrieve/neighbourhood", repo=repo, paths=paths)
    with _lock:
        table = _tables.get(repo)
        if table is None or table.version != version:
            table = None
            if _asked.get(repo) == version and repo not in _loading:  # a second task: a warm process
                _loading[repo] = thread = threading.Thread(target=_fill, args=(store, repo, version), daemon=True,
                                                           name=f"kg-ties-{repo}")
                thread.start()
            _asked[repo] = version
    if table is None:
        return store.read("retrieve/neighbourhood", repo=repo, paths=paths)
    return table.rows(paths)


def _fill(store: Store, repo: str, version: object) -> None:
    try:
        table = _load(store, repo, version)
        with _lock:
            _tables[repo] = table
    except KgError:
        pass  # the server went away or the process is closing: each task keeps asking the graph
    finally:
        with _lock:
            _loading.pop(repo, None)


def _load(store: Store, repo: str, version: object) -> _Table:
    table = _Table(version)
    for r in store.read("retrieve/repo_ties", repo=repo):
        row = (r["src"], r["dst"], r["type"], r["n"])
        table.out[r["src"]].append(row)
        table.into[r["dst"]].append(row)
    return table


def settle() -> None:
    """Wait until the tables being read are in (benchmarks and tests: the state of a warm process)."""
    with _lock:
        threads = list(_loading.values())
    for thread in threads:
        thread.join()


def forget() -> None:
    """Drop every table (tests; a process that wants the graph's answer again)."""
    settle()
    with _lock:
        _tables.clear()
        _asked.clear()
