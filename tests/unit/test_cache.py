"""The parse cache (kg.ingest.cache): what one process parsed, a later one reads back; a cache it cannot read is an
empty cache, never an error; a flush with `keep` leaves exactly the kept entries. Real SQLite files under tmp_path."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from kg.ingest import cache
from kg.ingest.cache import CachedParse, ParseCache
from kg.ingest.languages.core import Tally
from kg.ingest.languages.python import LANGUAGE
from kg.ingest.project import Column, file_facts
from kg.ingest.walk import span_hash

from kg.source_files import content_hash

SOURCES = {
    "a.py": b"import os\n\n\nclass A:\n    def run(self):\n        return os.getcwd()\n",
    "b.py": b"from a import A\n\n\ndef main():\n    A().run()\n",
    "c.py": b"VALUE = 1\n",
}


def entry(path: str) -> tuple[str, CachedParse]:
    source = SOURCES[path]
    parsed = LANGUAGE.parse(path, path.removesuffix(".py"), source)
    lines = source.decode().splitlines()
    spans = {s.qname: span_hash(lines, s.start_line, s.end_line) for s in parsed.symbols}
    return content_hash(source), CachedParse(parsed, frozenset({parsed.module}), False, spans)


def filled(path: Path, *files: str) -> dict[str, CachedParse]:
    cache = ParseCache(path)
    entries = dict(entry(f) for f in files)
    for key, value in entries.items():
        cache.put(key, value)
    cache.flush()
    return entries


def test_what_one_process_flushed_the_next_reads_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "parses.sqlite"  # its folder is created on first use
    entries = filled(path, "a.py", "b.py")
    again = ParseCache(path)
    for key, value in entries.items():
        got = again.get(key)
        assert got == value and got.parsed.data == value.parsed.data  # data is what resolution reads
    assert again.get(content_hash(b"never parsed")) is None


def test_nothing_reaches_disk_before_flush(tmp_path: Path) -> None:
    path = tmp_path / "parses.sqlite"
    cache = ParseCache(path)
    key, value = entry("a.py")
    cache.put(key, value)
    assert cache.get(key) == value  # served from memory
    assert ParseCache(path).get(key) is None
    cache.flush()
    assert ParseCache(path).get(key) == value


def test_flush_with_keep_drops_every_other_entry_on_disk_and_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "parses.sqlite"
    old = filled(path, "a.py", "b.py")
    cache = ParseCache(path)
    a, b = old
    assert cache.get(a) is not None and cache.get(b) is not None  # both now held in memory too
    c, value = entry("c.py")
    cache.put(c, value)
    cache.flush(keep={a, c})
    assert (cache.get(a) is not None, cache.get(b), cache.get(c)) == (True, None, value)
    on_disk = {row[0] for row in sqlite3.connect(path).execute("SELECT hash FROM parses")}
    assert on_disk == {a, c}


def test_forget_memory_keeps_unflushed_entries(tmp_path: Path) -> None:
    path = tmp_path / "parses.sqlite"
    (flushed, _), = filled(path, "a.py").items()
    cache = ParseCache(path)
    cache.get(flushed)
    key, value = entry("b.py")
    cache.put(key, value)
    cache.forget_memory()
    assert cache.get(key) == value and ParseCache(path).get(key) is None  # only in memory, and still there
    assert cache.get(flushed) is not None  # read from disk again


def test_a_file_that_is_not_a_database_is_an_empty_cache(tmp_path: Path) -> None:
    path = tmp_path / "parses.sqlite"
    path.write_bytes(b"this is not SQLite" * 100)
    cache = ParseCache(path)
    key, value = entry("a.py")
    assert cache.get(key) is None
    cache.put(key, value)
    cache.flush()  # no error: this run just has no disk cache
    assert cache.get(key) == value and path.read_bytes().startswith(b"this is not SQLite")


def test_a_torn_entry_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "parses.sqlite"
    entries = filled(path, "a.py", "b.py")
    a, b = entries
    with sqlite3.connect(path) as db:
        blob = db.execute("SELECT entry FROM parses WHERE hash = ?", (a,)).fetchone()[0]
        db.execute("UPDATE parses SET entry = ? WHERE hash = ?", (blob[: len(blob) // 2], a))
    cache = ParseCache(path)
    assert cache.get(a) is None and cache.get(b) == entries[b]


def test_a_cache_folder_that_cannot_be_created_means_no_disk_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    cache = ParseCache(blocker / "parses.sqlite")
    key, value = entry("a.py")
    assert cache.get(key) is None
    cache.put(key, value)
    cache.flush()
    assert cache.get(key) == value and cache.path is None


def test_without_a_path_the_cache_lives_in_memory_only() -> None:
    cache = ParseCache(None)
    key, value = entry("a.py")
    cache.put(key, value)
    cache.flush()
    assert cache.get(key) == value


def test_the_fingerprint_moves_with_the_parsing_code_and_the_grammar_versions(tmp_path: Path) -> None:
    """Issue 15.5: a grammar or kg upgrade without a hand-bumped number must not serve stale parses."""
    code = tmp_path / "ingest"
    shutil.copytree(Path(cache.__file__).parent, code, ignore=shutil.ignore_patterns("__pycache__"))
    writes = tmp_path / "writes"
    shutil.copytree(cache._INGEST_WRITES, writes)
    versions = {name: cache._installed(name) for name in cache.PARSING_DISTRIBUTIONS}
    assert cache.fingerprint(code, versions, writes) == cache.parser_fingerprint()  # the same inputs as a real run
    front_end = next(code.rglob("languages/**/*.py"))
    front_end.write_text(front_end.read_text() + "\n# a changed line\n")
    edited = cache.fingerprint(code, versions, writes)
    assert edited != cache.parser_fingerprint()
    upgraded = cache.fingerprint(code, {**versions, "tree-sitter-python": "99.0.0"}, writes)
    assert upgraded not in (edited, cache.parser_fingerprint())
    # a fix to a write query alone (what DEPENDS_ON keeps of a file's imports) must reach graphs written before it
    query = writes / "depends_on_put.cypher"
    query.write_text(query.read_text() + "\n// a changed line\n")
    assert cache.fingerprint(code, {**versions, "tree-sitter-python": "99.0.0"}, writes) != upgraded


def test_a_cache_made_by_other_parsing_code_is_deleted_and_never_read(tmp_path: Path) -> None:
    old = tmp_path / "parse-0123456789abcdef-shop.sqlite"
    older = tmp_path / "parse-v6-shop.sqlite"  # named by the hand-bumped version kg used before
    neighbour = tmp_path / "parse-0123456789abcdef-my-shop.sqlite"  # another repository whose name ends alike
    for path in (old, older, neighbour):
        filled(path, "a.py")
    current = cache.cache_path(tmp_path, "shop")
    assert cache.parser_fingerprint() in current.name and current.name.endswith("-shop.sqlite")
    assert not old.exists() and not older.exists() and neighbour.exists()
    assert ParseCache(current).get(entry("a.py")[0]) is None


def test_a_projects_parse_cache_lives_in_the_users_own_private_folder(tmp_path: Path, monkeypatch) -> None:
    """Attack report #1: unpickling data a repository can commit runs its code, so the cache is never in the
    project; two checkouts get two folders, and the folder is owner-only like the code it holds parses of."""
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "user-cache"))
    project, other = tmp_path / "repo", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    folder = cache.project_cache_dir(project)
    assert (tmp_path / "user-cache") in folder.parents and project not in folder.parents
    assert folder != cache.project_cache_dir(other)
    assert folder == cache.project_cache_dir(project / "." )  # the same project however it is spelled
    filled(cache.cache_path(folder, "shop"), "a.py")
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_saved_index_is_read_back_column_by_column_and_only_what_is_asked(tmp_path: Path) -> None:
    """The project index a run saves (ingest.project.RepoState.index_changes) is read back by a new process as
    facts up front, every other column one path at a time or whole when iterated, with what this process changed
    winning over what was saved; a tally saved beside it comes back equal."""
    path = tmp_path / "parses.sqlite"
    parses = {f: entry(f)[1].parsed for f in SOURCES}
    facts = {f: file_facts(p, content_hash(SOURCES[f])) for f, p in parses.items()}
    mentions = {f: frozenset({f[0]}) for f in SOURCES}
    members = Tally([[("run", "a.A", "func"), ("run", "b.B", "func"), ("size", "a.A", "prop")]])
    ParseCache(path).save_index(facts, deleted=[], whole=True, columns={"mentions": mentions, "reads": {"a.py": None}},
                                tallies={"python:class_members": (True, members.groups())})

    saved = ParseCache(path)
    assert saved.index() == facts
    assert saved.index_tally("python:class_members") and not saved.index_tally("python:flows")
    read = Tally(load=lambda key: saved.index_tally_group("python:class_members", key))
    assert dict(read.get("run")) == {("a.A", "func"): 1, ("b.B", "func"): 1} and dict(read.get("save")) == {}
    read.remove([("size", "a.A", "prop")])  # a group changed: only it is saved again, and an empty one goes
    ParseCache(path).save_index({}, deleted=[], tallies={"python:class_members": (False, read.groups(read.changed))})
    assert ParseCache(path).index_tally_group("python:class_members", "size") is None
    assert ParseCache(path).index_tally_group("python:class_members", "run") == read.get("run")
    column = Column("mentions", saved)
    assert column["b.py"] == frozenset({"b"})
    assert column.known("b.py") and not column.known("a.py")  # one path read, not the others
    column["a.py"] = frozenset({"changed"})
    del column["c.py"]
    assert "c.py" not in column and column.known("c.py")
    assert dict(column) == {"a.py": frozenset({"changed"}), "b.py": frozenset({"b"})}  # iterating reads the rest
    assert "a.py" not in Column("reads", saved) and dict(Column("reads", saved)) == {}  # saved as none

    # a later run updates one file's value and drops another file: the next process reads that back
    ParseCache(path).save_index({"a.py": facts["a.py"]}, deleted=["c.py"], columns={"mentions": {"a.py": frozenset()}})
    again = ParseCache(path)
    assert again.index().keys() == {"a.py", "b.py"}
    assert dict(Column("mentions", again)) == {"a.py": frozenset(), "b.py": frozenset({"b"})}
