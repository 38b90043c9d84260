"""`kg ingest`: walk → hash → parse → resolve → write, touching only what changed since the graph last saw the tree.

The graph is the source of truth for what is already ingested: every Module and Document carries the content hash
of the file it came from, set as the file's last write. A run compares those hashes with the tree and
- writes nothing when nothing changed (a re-run on an unchanged tree only walks and hashes);
- rewrites each changed file's own subgraph and outgoing edges, deletes what vanished, and re-resolves the other
  files the change can affect (see ingest.project), so no edge is left pointing at a symbol that is gone;
- does a small change in one transaction, a large one (the first ingest) in UNWIND batches.

Parses are cached on disk by content hash (ingest.cache), so a new process parses only what changed, and a run
killed half way (a Neo4j that died mid-write) simply redoes the files it had not marked (a bulk write marks its code
files before it writes the documents) and says so in a note.
"""

from __future__ import annotations

import gc
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg.ingest.cache import CachedParse, ParseCache, cache_path, parser_fingerprint
from kg.ingest.documents import chunk_document
from kg.ingest.facts import ParsedFile
from kg.ingest.languages import by_name, language_for
from kg.ingest.lock import end_orphaned_writes, ingest_label, repo_lock
from kg.ingest.project import RepoState, mentioned_names
from kg.ingest.walk import SourceFile, decode, settled, span_hash, stat_key, walk
from kg.ingest.writer import MODEL, FileWrite, GraphWriter

from kg.disk import require_free_space
from kg.errors import InputError
from kg.names import check_repo_name
from kg.retrieve.text import code_words, path_words
from kg.source_files import content_hash

if TYPE_CHECKING:  # a one-shot update writes through kg.query_api and never imports the driver
    from kg.store import Store

SMALL_CHANGE = 50  # files; up to this many are written in one transaction

Progress = Callable[[str, int, int], None]  # stage, done, total


@dataclass
class IngestReport:
    repo: str
    root: str
    files: int = 0
    documents: int = 0
    symbols: int = 0
    written: int = 0  # files whose nodes were (re)written
    reresolved: int = 0  # other files whose outgoing edges were rewritten because of the change
    deleted: int = 0
    unchanged: int = 0
    edges: dict[str, int] = field(default_factory=dict)  # by kind, for the files resolved in this run
    calls_by_resolution: dict[str, int] = field(default_factory=dict)
    syntax_errors: dict[str, int] = field(default_factory=dict)  # path → recovered error count
    bad_encoding: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    changed: list[str] = field(default_factory=list)  # files (re)written in this run, for the embedding phase
    hashed: int = 0  # files read and hashed because their stat was new or changed (the others were not read)
    loaded: int = 0  # parses of unchanged files this run brought into memory (from the cache, or parsed again)
    indexed: bool = False  # the run started from the compact project index saved by an earlier process
    parse_seconds: float = 0.0
    seconds: float = 0.0
    # Seconds per step of this run, measured by the pipeline itself (see PHASES); what benchmarks read.
    phases: dict[str, float] = field(default_factory=dict)
    writes: dict[str, dict[str, float]] = field(default_factory=dict)  # named write → calls, rows, seconds
    notes: list[str] = field(default_factory=list)  # one line each, for the person who ran it

    def to_dict(self) -> dict:
        return {**self.__dict__, "skipped": [{"path": p, "reason": r} for p, r in self.skipped]}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the time spent in the block to `phases[name]`."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = round(self.phases.get(name, 0.0) + time.perf_counter() - began, 4)


# The steps of a run, in order, as they appear in IngestReport.phases (a step a run does not need is absent):
# walk the tree; read what the graph holds (once per Ingestor); read and hash changed files; load the compact
# project index (a new process with something to do); parse (cached parses included); the words of changed code
# files for retrieval; find the other files a change affects; resolve; chunk documents; write to the graph (on a
# first ingest the nodes are written during `resolve`); save the cache.
PHASES = ("walk", "graph hashes", "hash", "index", "parse", "words", "affected", "resolve", "documents", "write",
          "cache save")


class Ingestor:
    """One repository kept in step with the graph; `run()` again (or from a watcher) to apply the next changes.

    Between runs it keeps the walk, each file's stat and hash, and every parse, so a run after a local edit
    re-reads and re-parses only the edited files, and `run(touched=[...])` skips the walk when the watcher reports
    only modifications of files it already knows. The stats and hashes are saved beside the parse cache, so a new
    process too reads only the files whose stat changed (walk.stat_key; a file changed within moments of being read
    is read again next time, walk.settled).
    """

    def __init__(self, store: Store, root: Path, repo: str | None = None, role: str = "target",
                 excludes: tuple[str, ...] = (), cache_dir: Path | None = None,
                 progress: Progress | None = None) -> None:
        root = Path(root).expanduser()
        if not root.exists():
            raise InputError(f"{root} does not exist: give the folder of a repository to ingest")
        if not root.is_dir():
            raise InputError(f"{root} is a file: give the folder of a repository to ingest")
        if role not in ("target", "reference"):
            raise InputError(f"role {role!r} is not `target` or `reference`")
        self.root = root.resolve()
        self.repo = check_repo_name(repo if repo is not None else self.root.name)
        self.role = role
        self.excludes = excludes
        self.parses = ParseCache(cache_path(cache_dir, self.repo) if cache_dir else None)
        self.progress = progress or (lambda stage, done, total: None)
        self.store = store
        self.writer = GraphWriter(store, self.repo)
        self.state = RepoState(load=self._load_parse)
        self._graph_hashes: dict[str, str | None] | None = None  # what the graph holds, read once per Ingestor
        self._unfinished = False  # the graph's Repo is marked as being written by a run that did not finish
        self._outdated = False  # the graph's files were written by another kg (model or parser): all rewritten
        self._files: dict[str, SourceFile] = {}  # the last walk
        self._skipped: list[tuple[str, str]] = []
        self._stats: dict[str, tuple[tuple[int, ...], str]] = {}  # path → (walk.stat_key, hash) when last hashed
        self._stats_loaded = False  # from the cache file, once per process
        self._stats_dirty: set[str] = set()  # paths whose entry changed or went since the last save
        self._contents: dict[str, bytes] = {}  # bytes read during the current run

    def run(self, touched: Iterable[Path] | None = None) -> IngestReport:
        """Bring the graph up to date with the tree. `touched`: paths a watcher saw change (a hint, never needed).
        Another run on the same graph and repository, in any process, finishes first (ingest.lock)."""
        with repo_lock(self.store.settings, self.repo):
            ended = end_orphaned_writes(self.store, self.repo)
            self.store.write_metadata = ingest_label(self.repo)
            try:
                report = self._run(touched)
            finally:
                self.store.write_metadata = None
            report.notes += [ended] if ended else []
            return report

    def _run(self, touched: Iterable[Path] | None) -> IngestReport:
        began = time.perf_counter()
        report = IngestReport(repo=self.repo, root=str(self.root))
        with report.phase("walk"):
            files = self._walk(touched)
        report.skipped = list(self._skipped)
        with report.phase("graph hashes"):
            known = self._known_hashes()
        with report.phase("hash"):
            hashes = self._hash(files, report)
        changed = sorted(p for p, h in hashes.items() if known.get(p) != h)
        deleted = sorted(set(known) - set(hashes))
        report.files = sum(1 for p in hashes if files[p].kind == "code")
        report.documents = len(hashes) - report.files
        report.unchanged = len(hashes) - len(changed)
        if self._unfinished:  # the repository's last run died: say that this one completes it, and what it redoes
            done = f"kept the {report.unchanged:,} files it had completed, wrote the other {len(changed):,}" \
                if report.unchanged else f"none of its files was complete, all {len(changed):,} written again"
            report.notes.append(f"finished the interrupted ingest of {self.repo}: "
                                + (done if changed else "all its files were complete, only its last step was lost"))
        if not changed and not deleted:
            if self._unfinished:  # a run died after its last file was marked: nothing is missing but the mark
                self.writer.finish()
                self._unfinished = False
            with report.phase("cache save"):
                self._save_stats()
            report.seconds = round(time.perf_counter() - began, 3)
            return report

        if not self.state.facts and known:  # a new process: start from the saved index (not needed until here)
            with report.phase("index"):
                report.indexed = self._seed(known)
        loads = self.state.parsed.loads
        step = FileWrite(deleted=set(deleted))
        with report.phase("parse"):
            previous = self._parse_tree(files, hashes, changed, report)
        report.parse_seconds = report.phases["parse"]

        code_changed = [p for p in changed if files[p].kind == "code"]
        self._node_facts(step, code_changed, hashes, report)
        nodes = self._write_nodes_early(step, known, report.writes)
        dependents: set[str] = set()
        if known:  # not the first ingest: other files may be affected
            with report.phase("affected"):
                dependents = self.state.affected_by({p: previous.get(p) for p in code_changed},
                                                    {p: previous.get(p) for p in deleted})
                unknown = [p for p in [*code_changed, *deleted] if previous.get(p) is None]
                if unknown:  # no earlier parse to compare with: ask the graph who points at these files
                    rows = self.store.read("ingest/files_pointing_at", repo=self.repo, paths=unknown)
                    dependents |= {r["path"] for r in rows if r["path"] in self.state.parsed}
                dependents -= set(code_changed)
                earlier = {p: previous.get(p) for p in [*code_changed, *deleted]}
                dependents |= self._flow_readers(code_changed, dependents, deleted, earlier) - set(code_changed)
        with report.phase("resolve"):
            resolved = self.state.resolve([*code_changed, *sorted(dependents)])
        step.edges = resolved
        step.reads = {p: self.state.reads[p] for p in resolved if p in self.state.reads}
        step.modules = {p: self.state.parsed[p].module for p in resolved}
        step.hashes = {p: hashes[p] for p in changed}
        with report.phase("documents"):
            step.documents = [chunk_document(p, decode(self._read(p))[0]) for p in changed
                              if files[p].kind == "document"]

        require_free_space(self.store.settings, "ingest")
        self.progress("write", 0, 1)
        try:
            with report.phase("write"):
                if nodes is not None:  # a first ingest: its nodes are written (or failed), the edges follow
                    nodes.result()
                    self.writer.write_edges(step, timings=report.writes)
                else:
                    # One transaction when it fits comfortably in Neo4j's transaction memory, else UNWIND batches
                    # (marked as being written until the last); either way the content hashes are written last, so
                    # a failure leaves the changed files to be redone.
                    one = len(changed) + len(deleted) + len(dependents) <= SMALL_CHANGE
                    # a first ingest marks its Repo even for one transaction: the Repo is written before it, and a
                    # bare Repo left by a failed transaction passed for a complete, empty repository
                    self.writer.put_repo(str(self.root), self.role, writing=not one or not known,
                                         current=not self._outdated)
                    self.writer.write(step, one_transaction=one, timings=report.writes)
        except BaseException:
            self._forget_memory()  # the next run starts from what the graph holds, as a new process would
            raise
        self.progress("write", 1, 1)
        self._unfinished = self._outdated = False
        for p in deleted:
            known.pop(p, None)
        known.update(step.hashes)
        bulk = len(changed) >= SMALL_CHANGE
        with report.phase("cache save"):
            self.parses.flush(keep={h for p, h in hashes.items() if p in self.state.parsed} if bulk else None)
            self._save_stats()
            facts, gone, columns, tallies, whole = self.state.index_changes(self.state.take_dirty())
            self.parses.save_index(facts, deleted=gone, whole=whole, columns=columns, tallies=tallies)

        edges = [e for es in resolved.values() for e in es]
        report.edges = dict(Counter(e.kind for e in edges))
        report.calls_by_resolution = dict(Counter(e.resolution for e in edges if e.kind == "CALLS"))
        report.symbols = sum(f.symbols for f in self.state.facts.values())
        report.loaded += self.state.parsed.loads - loads
        report.written = len(changed)
        report.changed = changed
        report.reresolved = len(dependents)
        report.deleted = len(deleted)
        report.seconds = round(time.perf_counter() - began, 3)
        return report

    def _write_nodes_early(self, step: FileWrite, known: dict[str, str | None],
                           timings: dict[str, dict[str, float]]) -> Future | None:
        """On a first ingest (the graph holds nothing of the repository), start writing the modules, symbols and
        DEFINES in a thread, so Neo4j works on the other core while this one resolves; None otherwise (then one
        writer at a time: clearing and writing shared nodes from two transactions could deadlock). A small first
        ingest is one transaction like any small change (over HTTP, no driver: see kg.query_api.QueryApiStore)."""
        if known or len(step.parsed) < SMALL_CHANGE:
            return None
        step.fresh = not self.store.read("ingest/repo_symbols_any", repo=self.repo)
        if not step.fresh:
            return None
        require_free_space(self.store.settings, "ingest")
        self.progress("write", 0, 1)
        self.writer.put_repo(str(self.root), self.role, writing=True)
        writer = ThreadPoolExecutor(1, thread_name_prefix="kg-write-nodes")
        try:
            return writer.submit(self.writer.write_nodes, step, timings)
        finally:
            writer.shutdown(wait=False)  # the thread ends with its one job

    def _node_facts(self, step: FileWrite, code_changed: list[str], hashes: dict[str, str],
                    report: IngestReport) -> None:
        """What the node writes need of the changed code files: their parses and their words for search."""
        step.parsed = {p: self.state.parsed[p] for p in code_changed}
        step.bad_encoding = {p for p in code_changed if self.parses.get(hashes[p]).bad_encoding}
        step.span_hashes = {p: self.parses.get(hashes[p]).span_hashes for p in code_changed}
        with report.phase("words"):
            step.words = {p: f"{path_words(p)} {code_words(decode(self._read(p))[0])}" for p in code_changed}

    def warm(self) -> None:
        """Load now what a new process's updates would load on demand (the compact project index, all of its
        columns and tallies), so a watcher's first edit costs what later ones do; a one-shot run never needs it."""
        with repo_lock(self.store.settings, self.repo):
            known = self._known_hashes()
            if not self.state.facts and known and self._seed(known):
                self.state.warm()

    def _flow_readers(self, changed: list[str], dependents: set[str], deleted: list[str],
                      previous: dict[str, ParsedFile | None]) -> set[str]:
        """Files to resolve again because what reaches parameters they read has changed (see ingest.project)."""
        keys = self.state.changed_flows([*changed, *sorted(dependents)], previous, deleted)
        if not keys:
            return set()
        readers, complete = self.state.flow_readers(keys)
        if not complete:  # a new process: the graph knows what each file's edges read
            rows = self.store.read("ingest/flow_readers", repo=self.repo, keys=sorted(keys))
            readers |= {r["path"] for r in rows if r["path"] in self.state.parsed}
        return readers

    def _seed(self, known: dict[str, str | None]) -> bool:
        """Start from the compact index an earlier process saved, when it describes exactly the files the graph
        holds (any other state — a run killed between the graph write and the index save, another kg — falls back
        to loading every parse, which rewrites the index)."""
        # Unpickling the index makes hundreds of thousands of tuples and frozensets, none of them garbage: the
        # cyclic collector would scan them all again and again (~40% of the load). They live as long as the state,
        # so they are frozen out of later collections too.
        gc.disable()
        try:
            rows = self.parses.index()
        finally:
            gc.enable()
        gc.freeze()
        code = {p: h for p, h in known.items() if language_for(p) is not None}
        if not rows or rows.keys() != code.keys() or any(rows[p].hash != h for p, h in code.items()):
            return False
        self.state.seed(rows, self.parses)
        return True

    def _load_parse(self, path: str, digest: str) -> ParsedFile | None:
        """The parse of an unchanged file from the cache; a file whose entry another file with the same bytes took
        over (an empty `__init__.py`) is parsed again, if it still holds those bytes."""
        facts = self.state.facts[path]
        entry = self.parses.get(digest)
        if entry is not None and entry.parsed.path == path and entry.parsed.module == facts.module:
            return entry.parsed
        try:
            data = (self.root / path).read_bytes()
        except OSError:
            return None
        return self._parse(path, facts.module, data).parsed if content_hash(data) == digest else None

    def _known_hashes(self) -> dict[str, str | None]:
        """What the graph holds for this repo (path → hash), read once; later runs keep it up to date in memory."""
        if self._graph_hashes is None:
            self.store.apply_schema()
            rows = self.store.read("ingest/file_hashes", repo=self.repo)
            written = (self.store.read("ingest/repo_model", repo=self.repo) or [{}])[0]
            self._unfinished = written.get("writing") is not None
            model, parser = written.get("model"), written.get("parser")
            if self._unfinished and written.get("writing_model") is not None:  # the files it marked are this kg's
                model, parser = written["writing_model"], written["writing_parser"]  # (a first ingest has no model)
            self._outdated = bool(rows) and ((model or 0) < MODEL or parser != parser_fingerprint())
            # A repository written by an older kg lacks what this one derives, or holds parses this kg would not
            # make (a grammar or front end upgraded): every file counts as changed once.
            self._graph_hashes = {row["path"]: None if self._outdated else row["hash"] for row in rows}
        return self._graph_hashes

    # ── the tree ──────────────────────────────────────────────────────────────────────────────────────────────

    def _walk(self, touched: Iterable[Path] | None) -> dict[str, SourceFile]:
        """The files to ingest: the last walk when only known files were modified, else a new walk."""
        if touched is not None and self._files:
            rel = []
            for path in touched:
                try:
                    rel.append(Path(path).resolve().relative_to(self.root).as_posix())
                except ValueError:
                    rel = []
                    break
            if rel and all(r in self._files and self._files[r].abs_path.is_file() for r in rel):
                return self._files
        stats = self._known_stats()
        tree = walk(self.root, self.excludes,
                    checked=lambda path, info: (seen := stats.get(path)) is not None and seen[0] == stat_key(info))
        self._files = {f.path: f for f in tree.files}
        self._skipped = [(s.path, s.reason) for s in tree.skipped]
        return self._files

    def _hash(self, files: dict[str, SourceFile], report: IngestReport) -> dict[str, str]:
        """Content hash per file; a file whose stat did not change since it was last hashed is not read."""
        hashes = {}
        self._contents = {}
        stats = self._known_stats()
        now = time.time_ns()  # before any stat below: what `settled` compares with
        for path, f in files.items():
            try:
                key = stat_key(info := os.stat(f.abs_path))
                seen = stats.get(path)
                if seen is not None and seen[0] == key:
                    hashes[path] = seen[1]
                    continue
                data = f.abs_path.read_bytes()
            except OSError as e:  # vanished or became unreadable since the walk
                report.skipped.append((path, f"unreadable: {e.strerror or e}"))
                continue
            self._contents[path] = data
            hashes[path] = content_hash(data)
            report.hashed += 1
            if settled(info, now):
                stats[path] = (key, hashes[path])
                self._stats_dirty.add(path)
            elif stats.pop(path, None) is not None:
                self._stats_dirty.add(path)
        for path in set(stats) - set(hashes):
            del stats[path]
            self._stats_dirty.add(path)
        return hashes

    def _known_stats(self) -> dict[str, tuple[tuple[int, ...], str]]:
        if not self._stats_loaded:
            self._stats = self.parses.stats()
            self._stats_loaded = True
        return self._stats

    def _save_stats(self) -> None:
        dirty, self._stats_dirty = self._stats_dirty, set()
        self.parses.save_stats({p: self._stats[p] for p in dirty if p in self._stats},
                               deleted=[p for p in dirty if p not in self._stats])

    def _read(self, path: str) -> bytes:
        if path not in self._contents:
            self._contents[path] = self._files[path].abs_path.read_bytes()
        return self._contents[path]

    # ── parsing ───────────────────────────────────────────────────────────────────────────────────────────────

    def _parse_tree(self, files: dict[str, SourceFile], hashes: dict[str, str], changed: list[str],
                    report: IngestReport) -> dict[str, ParsedFile]:
        """Bring self.state up to date with the tree; returns the previous parse of each changed or deleted file
        known before (parses of other files stay where they are: in the cache until resolution reads them)."""
        changed = set(changed)  # type: ignore[assignment] — looked up once per file below
        previous: dict[str, ParsedFile] = {}  # the earlier parse of the changed and deleted files, when known
        for path in self.state.parsed:
            if (path in changed or path not in hashes or files[path].kind != "code") and \
                    (before := self.state.parsed.get(path)) is not None:
                previous[path] = before
        for path in changed:  # what the graph holds, for a fresh Ingestor
            entry = self.parses.get(known_hash) if (known_hash := (self._graph_hashes or {}).get(path)) else None
            if path not in previous and entry is not None:
                previous[path] = entry.parsed
        for path, known_hash in (self._graph_hashes or {}).items():  # files deleted since
            if path not in hashes and path not in previous and known_hash and (entry := self.parses.get(known_hash)):
                previous[path] = entry.parsed

        code = [p for p in sorted(hashes) if files[p].kind == "code"]
        by_language: dict[str, list[str]] = {}
        for path in code:
            by_language.setdefault(language_for(path).name, []).append(path)
        names = {lang: by_name(lang).module_names(paths) for lang, paths in by_language.items()}

        fresh: dict[str, tuple[ParsedFile, frozenset[str], str]] = {}
        facts = self.state.facts
        todo = [p for p in code if p not in facts or p in changed
                or facts[p].module != names[language_for(p).name][p]]
        for done, path in enumerate(todo):
            if done % 50 == 0:
                self.progress("parse", done, len(todo))
            entry = self.parses.get(hashes[path])
            module = names[language_for(path).name][path]
            if entry is None or entry.parsed.module != module or entry.parsed.path != path:
                entry = self._parse(path, module, self._read(path))
                self.parses.put(hashes[path], entry)
            fresh[path] = (entry.parsed, entry.mentions, hashes[path])
            if path not in changed:  # an unchanged file this process did not hold yet (no usable index)
                report.loaded += 1
            if entry.parsed.gave_up:
                report.skipped.append((path, entry.parsed.gave_up))
            elif entry.parsed.syntax_errors:
                report.syntax_errors[path] = entry.parsed.syntax_errors
            if entry.bad_encoding:
                report.bad_encoding.append(path)
        self.progress("parse", len(todo), len(todo))
        gone = [p for p in self.state.parsed if p not in hashes or files[p].kind != "code"]
        self.state.replace(fresh, gone)
        return previous

    @staticmethod
    def _parse(path: str, module: str, data: bytes) -> CachedParse:
        parsed = language_for(path).parse(path, module, data)
        text, bad_encoding = decode(data)
        lines = text.splitlines()
        spans = {s.qname: span_hash(lines, s.start_line, s.end_line) for s in parsed.symbols}
        return CachedParse(parsed, mentioned_names(data), bad_encoding, spans)

    def _forget_memory(self) -> None:
        self.state = RepoState(load=self._load_parse)
        self._graph_hashes = None
        self._stats.clear()
        self._stats_loaded = False  # what was saved still holds: stats say nothing about the graph
        self._stats_dirty.clear()
        self.parses.forget_memory()
