"""`kg ingest`: walk → hash → parse → resolve → write, touching only what changed since the graph last saw the tree.

The graph is the source of truth for what is already ingested: every Module and Document carries the content hash
of the file it came from, set as the file's last write. A run compares those hashes with the tree and
- writes nothing when nothing changed (a re-run on an unchanged tree only walks and hashes);
- rewrites each changed file's own subgraph and outgoing edges, deletes what vanished, and re-resolves the other
  files the change can affect (see ingest.project), so no edge is left pointing at a symbol that is gone;
- does a small change in one transaction, a large one (the first ingest) in UNWIND batches.

Parses are cached on disk by content hash (a pure function of the bytes), so an incremental run parses only what
changed, and a run killed half way (a Neo4j that died mid-write) simply redoes the files it had not marked.
"""

from __future__ import annotations

import pickle
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ingest.documents import chunk_document
from ingest.facts import ParsedFile
from ingest.languages import by_name, language_for
from ingest.project import RepoState, mentioned_names
from ingest.walk import SourceFile, content_hash, decode, walk
from ingest.writer import FileWrite, GraphWriter
from kg.errors import InputError
from kg.store import Store

CACHE_VERSION = 1
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
    parse_seconds: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {**self.__dict__, "skipped": [{"path": p, "reason": r} for p, r in self.skipped]}


class Ingestor:
    """One repository kept in step with the graph; `run()` again (or from a watcher) to apply the next changes."""

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
        self.repo = repo or self.root.name
        self.role = role
        self.excludes = excludes
        self.cache_path = cache_dir / f"parse-v{CACHE_VERSION}-{self.repo}.pickle" if cache_dir else None
        self.progress = progress or (lambda stage, done, total: None)
        self.store = store
        self.writer = GraphWriter(store, self.repo)
        self.state = RepoState()
        self._graph_hashes: dict[str, str | None] | None = None  # what the graph holds, read once per Ingestor

    def run(self) -> IngestReport:
        began = time.perf_counter()
        report = IngestReport(repo=self.repo, root=str(self.root))
        tree = walk(self.root, self.excludes)
        report.skipped = [(s.path, s.reason) for s in tree.skipped]
        known = self._known_hashes()

        sources = {f.path: f for f in tree.files}
        contents: dict[str, bytes] = {}
        hashes: dict[str, str] = {}
        for f in tree.files:
            try:
                contents[f.path] = f.abs_path.read_bytes()
            except OSError as e:  # vanished or became unreadable since the walk
                report.skipped.append((f.path, f"unreadable: {e.strerror or e}"))
                continue
            hashes[f.path] = content_hash(contents[f.path])
        changed = sorted(p for p, h in hashes.items() if known.get(p) != h)
        deleted = sorted(set(known) - set(hashes))
        report.files = sum(1 for p in hashes if sources[p].kind == "code")
        report.documents = len(hashes) - report.files
        report.unchanged = len(hashes) - len(changed)
        if not changed and not deleted:
            report.seconds = round(time.perf_counter() - began, 3)
            return report

        step = FileWrite(deleted=set(deleted))
        parse_began = time.perf_counter()
        previous = self._parse_tree(sources, contents, hashes, changed, step, report)
        report.parse_seconds = round(time.perf_counter() - parse_began, 3)

        code_changed = [p for p in changed if sources[p].kind == "code"]
        dependents: set[str] = set()
        if known:  # not the first ingest: other files may be affected
            dependents = self.state.affected_by({p: previous.get(p) for p in code_changed},
                                                {p: previous.get(p) for p in deleted})
            unknown = [p for p in [*code_changed, *deleted] if previous.get(p) is None]
            if unknown:  # no earlier parse to compare with: ask the graph who points at these files
                rows = self.store.read("ingest/files_pointing_at", repo=self.repo, paths=unknown)
                dependents |= {r["path"] for r in rows if r["path"] in self.state.parsed}
            dependents -= set(code_changed)
        resolved = self.state.resolve([*code_changed, *sorted(dependents)])
        step.edges = resolved
        step.modules = {p: self.state.parsed[p].module for p in resolved}
        step.parsed = {p: self.state.parsed[p] for p in code_changed}
        step.hashes = {p: hashes[p] for p in changed}
        self._documents(sources, contents, changed, step)

        self.writer.put_repo(str(self.root), self.role)
        self.progress("write", 0, 1)
        self.writer.write(step, one_transaction=len(changed) + len(deleted) <= SMALL_CHANGE)
        self.progress("write", 1, 1)
        for p in deleted:
            known.pop(p, None)
        known.update(step.hashes)
        self._save_cache()

        edges = [e for es in resolved.values() for e in es]
        report.edges = dict(Counter(e.kind for e in edges))
        report.calls_by_resolution = dict(Counter(e.resolution for e in edges if e.kind == "CALLS"))
        report.symbols = sum(len(p.symbols) for p in self.state.parsed.values())
        report.written = len(changed)
        report.reresolved = len(dependents)
        report.deleted = len(deleted)
        report.seconds = round(time.perf_counter() - began, 3)
        return report

    def _known_hashes(self) -> dict[str, str | None]:
        """What the graph holds for this repo (path → hash), read once; later runs keep it up to date in memory."""
        if self._graph_hashes is None:
            self.store.apply_schema()
            rows = self.store.read("ingest/file_hashes", repo=self.repo)
            self._graph_hashes = {row["path"]: row["hash"] for row in rows}
        return self._graph_hashes

    def _parse_tree(self, sources: dict[str, SourceFile], contents: dict[str, bytes], hashes: dict[str, str],
                    changed: list[str], step: FileWrite, report: IngestReport) -> dict[str, ParsedFile]:
        """Bring self.state up to date with the tree; returns the previous parse of every file known before."""
        cache = self._load_cache()
        previous: dict[str, ParsedFile] = dict(self.state.parsed)
        for path, h in (self._graph_hashes or {}).items():  # what the graph holds, for a fresh Ingestor
            if path not in previous and h in cache:
                previous[path] = cache[h]

        code = [p for p in sorted(hashes) if sources[p].kind == "code"]
        by_language: dict[str, list[str]] = {}
        for path in code:
            by_language.setdefault(language_for(path).name, []).append(path)
        names = {lang: by_name(lang).module_names(paths) for lang, paths in by_language.items()}

        fresh: dict[str, tuple[ParsedFile, frozenset[str]]] = {}
        todo = [p for p in code if p not in self.state.parsed or p in changed]
        for done, path in enumerate(todo):
            if done % 50 == 0:
                self.progress("parse", done, len(todo))
            lang = language_for(path)
            module = names[lang.name][path]
            parsed = cache.get(hashes[path])
            if parsed is None or parsed.module != module or parsed.path != path:
                parsed = lang.parse(path, module, contents[path])
            fresh[path] = (parsed, mentioned_names(contents[path]))
            if parsed.syntax_errors:
                report.syntax_errors[path] = parsed.syntax_errors
            if decode(contents[path])[1]:
                step.bad_encoding.add(path)
                report.bad_encoding.append(path)
        self.progress("parse", len(todo), len(todo))
        gone = [p for p in self.state.parsed if p not in hashes or sources[p].kind != "code"]
        self.state.replace(fresh, gone)
        self._cache = {hashes[p]: self.state.parsed[p] for p in self.state.parsed}
        return previous

    def _documents(self, sources: dict[str, SourceFile], contents: dict[str, bytes], changed: list[str],
                   step: FileWrite) -> None:
        for path in changed:
            if sources[path].kind == "document":
                text, _ = decode(contents[path])
                step.documents.append(chunk_document(path, text))

    def _load_cache(self) -> dict[str, ParsedFile]:
        if self.cache_path is None or not self.cache_path.exists():
            return {}
        try:
            with self.cache_path.open("rb") as f:
                return pickle.load(f)
        except Exception:  # a cache from another version or a torn write is just a cold cache
            return {}

    def _save_cache(self) -> None:
        if self.cache_path is None:
            return
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(self._cache, f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(self.cache_path)


def ingest(store: Store, root: Path, **options) -> IngestReport:
    return Ingestor(store, root, **options).run()
