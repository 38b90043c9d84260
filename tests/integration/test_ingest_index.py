"""The compact project index: a new process applies a one-file change by loading only the parses that change reads,
and the graph still equals a clean ingest (real Neo4j, flask 3.0.3 from its PyPI sdist)."""

from __future__ import annotations

import shutil
from pathlib import Path

from kg.ingest.cache import ParseCache, cache_path
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg.store import Store
from tests.graph_snapshot import snapshot
from tests.sdists import sdist

# A one-file edit reads the changed file (its earlier parse too), what it imports and what its calls reach: for
# flask's app.py, which imports most of flask, 26 of the 82 files; loading every parse is what a new process did
# before the index. What the edit reads, not the repository's size, sets the cost.
MOST_LOADED = 30


def edit(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def equals_clean(store: Store, work: Path) -> bool:
    GraphWriter(store, "clean").forget_repo()
    Ingestor(store, work, repo="clean").run()
    return snapshot(store, "idx") == snapshot(store, "clean")


def test_a_new_process_applies_a_one_file_change_from_the_index(store: Store, tmp_path: Path) -> None:
    work = tmp_path / "flask"
    shutil.copytree(sdist("flask", "3.0.3"), work)
    cache = tmp_path / "cache"
    first = Ingestor(store, work, repo="idx", cache_dir=cache).run()
    assert not first.indexed and first.files == 82

    # a definition added, then a call added inside a function other files call: each from a new process
    helpers = work / "src" / "flask" / "helpers.py"
    edit(helpers, "\n\ndef index_probe():\n    return get_debug_flag()\n")
    added = Ingestor(store, work, repo="idx", cache_dir=cache).run()
    assert added.indexed and added.written == 1
    assert 0 < added.loaded <= MOST_LOADED, added.loaded
    assert equals_clean(store, work)

    app = work / "src" / "flask" / "app.py"
    app.write_text(app.read_text().replace("ctx = self.request_context(environ)\n",
                                           "ctx = self.request_context(environ)\n        get_debug_flag()\n"))
    called = Ingestor(store, work, repo="idx", cache_dir=cache).run()
    assert called.indexed and called.written == 1
    assert called.loaded <= MOST_LOADED, called.loaded
    assert equals_clean(store, work)


def test_an_index_that_does_not_match_the_graph_is_not_used(store: Store, tmp_path: Path) -> None:
    """A run killed between the graph write and the index save leaves an index that describes other files than the
    graph holds: the next process loads every parse instead, and the graph is still right."""
    work = tmp_path / "flask"
    shutil.copytree(sdist("flask", "3.0.3"), work)
    cache = tmp_path / "cache"
    Ingestor(store, work, repo="idx", cache_dir=cache).run()
    stale = ParseCache(cache_path(cache, "idx"))
    stale.save_index({}, deleted=["src/flask/helpers.py"])
    edit(work / "src" / "flask" / "helpers.py", "\n\ndef index_probe():\n    return 1\n")
    fallback = Ingestor(store, work, repo="idx", cache_dir=cache).run()
    assert not fallback.indexed and fallback.loaded >= 80 and fallback.written == 1
    assert equals_clean(store, work)
    edit(work / "src" / "flask" / "helpers.py", "\n\ndef index_probe_2():\n    return 2\n")
    again = Ingestor(store, work, repo="idx", cache_dir=cache).run()  # the fallback wrote the index anew
    assert again.indexed and again.loaded <= MOST_LOADED
    assert equals_clean(store, work)
