"""Turns parsed and resolved facts into rows for the named writes in queries/ingest/.

A file is written in a fixed order: clear its outgoing edges, upsert its module and symbols, prune the symbols it
no longer defines (their incoming edges go with them, so nothing points at a ghost), write DEFINES, write its
outgoing edges, derive its module's DEPENDS_ON from them, and only then mark it with its content hash. A write that
dies half way leaves the file unmarked, so the next ingest redoes it. A bulk write marks the code files once their
edges are written, before the documents: a run that dies among the documents leaves only those to redo. It records
which step it is at (nodes, edges, documents) on the Repo it marked, so answers can say what may be missing.

MODEL is the version of what kg derives for a repository (DEPENDS_ON, Module.package), and the parser fingerprint
(kg.ingest.cache) says which parsing code wrote it; a repository last written with an older model or other parsing
code is rewritten in full once (ingest.pipeline), since its unchanged files would never be.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.ingest.cache import parser_fingerprint
from kg.ingest.documents import Document
from kg.ingest.facts import Edge, ParsedFile

from kg.retrieve.text import symbol_words

if TYPE_CHECKING:  # a one-shot update writes through kg.query_api and never imports the driver
    from kg.store import Store, Transaction

_LABELS = {"class": "Class", "function": "Function", "method": "Method", "variable": "Variable"}
_INTERNAL = frozenset({"symbol", "module"})
MODEL = 2  # 2: Module.package and (:Module)-[:DEPENDS_ON]->(:Module)
# What makes two edge rows one pair of nodes in edges_*_put (a row has the target_* keys or `target`, not both)
_PAIR = ("type", "source_module", "source_symbol", "target_module", "target_symbol", "target")


@dataclass
class FileWrite:
    """Everything to write for one ingest step: files to (re)write, files whose edges are re-resolved, deletions."""

    parsed: dict[str, ParsedFile] = field(default_factory=dict)  # path → parse, files whose nodes change
    bad_encoding: set[str] = field(default_factory=set)
    span_hashes: dict[str, dict[str, str]] = field(default_factory=dict)  # path → symbol qname → span hash
    edges: dict[str, list[Edge]] = field(default_factory=dict)  # path → outgoing edges (parsed files and dependents)
    reads: dict[str, frozenset[str]] = field(default_factory=dict)  # path → argument flows its edges read
    modules: dict[str, str] = field(default_factory=dict)  # path → module name, for every path in `edges`
    documents: list[Document] = field(default_factory=list)
    deleted: set[str] = field(default_factory=set)
    hashes: dict[str, str] = field(default_factory=dict)  # path → content hash, marked last
    words: dict[str, str] = field(default_factory=dict)  # path → the file's words for full-text search
    fresh: bool = False  # the graph holds nothing of the repository yet (a first ingest): nothing to clear

    def is_empty(self) -> bool:
        return not (self.parsed or self.edges or self.documents or self.deleted or self.hashes)


class GraphWriter:
    def __init__(self, store: Store, repo: str) -> None:
        self.store = store
        self.repo = repo
        self.marked = False  # this writer marked the repository as being written (kg.unfinished)

    def put_repo(self, root: str, role: str, writing: bool = False, current: bool = True) -> None:
        """`writing`: mark the repository as being written until the write's last step (a write that is not one
        transaction), so answers can say it is incomplete if the write never gets there. `current`: the files the
        graph holds marked are this kg's (not a rewrite of an older model's), so the next run may keep what this
        one marks if it dies."""
        self.store.write("ingest/repo_put", repo=self.repo, root=root, role=role)
        if writing:
            self.store.write("ingest/repo_writing_put", repo=self.repo, model=MODEL if current else None,
                             parser=parser_fingerprint() if current else None)
            self.marked = True

    def finish(self) -> None:
        """Clear the mark of an interrupted write whose files all turned out to be written (only the last step
        was lost)."""
        self.store.write("ingest/repo_model_put", repo=self.repo, model=MODEL, parser=parser_fingerprint())

    def forget_repo(self) -> None:
        """Remove everything ingested from this repository (and Externals only it pointed at)."""
        self.store.write("ingest/repo_delete", repo=self.repo)
        self.store.write("ingest/externals_prune")
        self.store.write("ingest/repo_node_delete", repo=self.repo)

    def write(self, step: FileWrite, one_transaction: bool, timings: dict[str, dict[str, float]] | None = None) -> None:
        """Write one step: in one transaction (an incremental update) or in UNWIND batches (a bulk ingest).
        `timings`, when given, gets calls, rows and seconds per named write (a transaction's commit is in none)."""
        if one_transaction:
            self.store.transaction(lambda tx: self._write(step, _Timed(tx, timings)))
        else:
            self._write(step, _Timed(self.store, timings, self.marked))

    def write_nodes(self, step: FileWrite, timings: dict[str, dict[str, float]] | None = None) -> None:
        """The first half of a bulk write into a graph that holds nothing of the repository (`step.fresh`): the
        modules, symbols and DEFINES, which need parses only, so a first ingest writes them while it resolves."""
        assert step.fresh and not step.deleted
        self._write_nodes(step, _Timed(self.store, timings, self.marked))

    def write_edges(self, step: FileWrite, timings: dict[str, dict[str, float]] | None = None) -> None:
        """The second half, after `write_nodes`: the resolved edges, documents and, last, the content hashes."""
        assert step.fresh
        self._write_edges(step, _Timed(self.store, timings, self.marked))

    def _write(self, step: FileWrite, sink: _Timed) -> None:
        self._write_nodes(step, sink)
        self._write_edges(step, sink)

    def _write_nodes(self, step: FileWrite, sink: _Timed) -> None:
        repo = self.repo
        sink.step("nodes", repo)
        if not step.fresh:  # a fresh graph has nothing to clear (and these are its slowest no-ops)
            cleared = sorted(set(step.edges) | set(step.parsed) | step.deleted)
            sink.write("ingest/files_clear", [{"path": p} for p in cleared], repo=repo)
        if step.deleted:
            sink.write("ingest/files_delete", [{"path": p} for p in sorted(step.deleted)], repo=repo)
        files = [step.parsed[p] for p in sorted(step.parsed)]
        if not files:
            return
        modules = [self._module_row(f, f.path in step.bad_encoding, step.words.get(f.path)) for f in files]
        symbols = (row for f in files for row in self._symbol_rows(f, step.span_hashes.get(f.path, {})))
        defines = (row for f in files for row in self._defines_rows(f))
        if step.fresh:  # nothing of the repository to match: CREATE, rows folded as MERGE would have met them
            sink.write("ingest/modules_create", modules, repo=repo)
            sink.write("ingest/symbols_create", _fold_symbols(symbols), repo=repo)
            sink.write("ingest/defines_create", list({_defines_key(r): r for r in defines}.values()))
            return
        sink.write("ingest/modules_put", modules, repo=repo)
        sink.write("ingest/symbols_put", _fold_symbols(symbols), repo=repo)
        sink.write("ingest/symbols_prune",
                   [{"path": f.path, "keys": [self._key(s.qname) for s in f.symbols]} for f in files], repo=repo)
        sink.write("ingest/defines_clear", [{"path": f.path} for f in files], repo=repo)
        sink.write("ingest/defines_put", list(defines))

    def _write_edges(self, step: FileWrite, sink: _Timed) -> None:
        repo = self.repo
        sink.step("edges", repo)
        if step.fresh:
            self._create_edges(step, sink)
        else:
            internal, external = self._edge_rows(step)
            sink.write("ingest/edges_internal_put", internal)
            sink.write("ingest/edges_external_put", external)
        if step.reads:
            sink.write("ingest/flow_reads_put", [{"key": self._key(p), "reads": sorted(r)}
                                                 for p, r in sorted(step.reads.items())])
        sink.write("ingest/depends_on_put", [{"path": p} for p in sorted(step.edges)], repo=repo)
        documents = {d.path for d in step.documents}
        code = [{"path": p, "hash": h} for p, h in sorted(step.hashes.items()) if p not in documents]
        if code:  # complete now: a run that dies among the documents leaves only those to redo
            sink.write("ingest/files_mark", code, repo=repo)
        if step.documents:
            sink.step("documents", repo)
            sink.write("ingest/documents_put", [self._document_row(d) for d in step.documents], repo=repo)
            sink.write("ingest/files_mark", [{"path": p, "hash": h} for p, h in sorted(step.hashes.items())
                                             if p in documents], repo=repo)
        sink.write("ingest/repo_model_put", repo=repo, model=MODEL, parser=parser_fingerprint())

    # ── rows ──────────────────────────────────────────────────────────────────────────────────────────────────

    def _key(self, qname_or_path: str) -> str:
        return f"{self.repo}:{qname_or_path}"

    def _module_row(self, f: ParsedFile, bad_encoding: bool, words: str | None = None) -> dict:
        return {"key": self._key(f.path), "path": f.path, "qname": f.module, "qkey": self._key(f.module),
                "package": posixpath.dirname(f.path) or ".", "lang": f.lang, "loc": f.loc,
                "syntax_errors": f.syntax_errors, "bad_encoding": bad_encoding, "words": words}

    def _symbol_rows(self, f: ParsedFile, span_hashes: dict[str, str]) -> Iterable[dict]:
        for s in f.symbols:
            yield {"key": self._key(s.qname), "path": f.path, "qname": s.qname, "name": s.name, "kind": s.kind,
                   "label": _LABELS[s.kind], "start_line": s.start_line, "end_line": s.end_line,
                   "signature": s.signature, "doc": s.doc, "test": is_test(f.path, s.name, s.kind),
                   "hash": span_hashes.get(s.qname), "words": symbol_words(s.qname, s.signature, s.doc)}

    def _defines_rows(self, f: ParsedFile) -> Iterable[dict]:
        for s in f.symbols:
            by_module = s.parent == f.module
            yield {"child": self._key(s.qname), "parent_module": self._key(f.path) if by_module else None,
                   "parent_symbol": None if by_module else self._key(s.parent)}

    def _edge_rows(self, step: FileWrite) -> tuple[list[dict], list[dict]]:
        """One row per (type, source, target) with that pair's edges keyed by line, for edges_*_put. A pair's
        edges of one line are one relationship (what MERGE (src)-[:TYPE {line}]->(dst) then SET kept): the last
        edge's properties win; an External's kind is its first row's (what ON CREATE SET kept), and a pair's first
        row is where its target first appears, since pairs keep the order they first appeared in."""
        internal: dict[tuple, dict] = {}
        external: dict[tuple, dict] = {}
        for path in sorted(step.edges):
            module = step.modules[path]
            for e in step.edges[path]:
                row = self._edge_ends(path, module, e)
                pairs = internal if e.target_kind in _INTERNAL else external
                pair = pairs.setdefault(tuple(row.get(k) for k in _PAIR), {**row, "edges": {}})
                pair["edges"][str(e.line)] = {"line": e.line, "resolution": e.resolution, "confidence": e.confidence,
                                              "through": e.through or None, "type_only": e.type_only or None}
        return list(internal.values()), list(external.values())

    def _edge_ends(self, path: str, module: str, e: Edge) -> dict:
        row = {"type": e.kind, "source_module": self._key(path) if e.source == module else None,
               "source_symbol": None if e.source == module else self._key(e.source)}
        if e.target_kind in _INTERNAL:
            row["target_module"] = self._key(e.target) if e.target_kind == "module" else None
            row["target_symbol"] = self._key(e.target) if e.target_kind == "symbol" else None
        else:
            row["target"] = _external_name(e)
            row["target_kind"] = e.target_kind
        return row

    def _create_edges(self, step: FileWrite, sink: _Timed) -> None:
        """The edges of a first ingest, CREATEd by one static-typed query per kind and target side. MERGE (src)-
        [:TYPE {line}]->(dst) then SET keeps one relationship per (type, source, target, line) with the last row's
        properties; the edges made distinct here, the last one winning, CREATE exactly that. Rows are made per
        batch as they are sent (a small tuple per distinct edge is all that is held), never all at once."""
        # (kind, by module, source, target side: "module", "symbol" or "external", target, line) → the last edge
        kept: dict[tuple[str, bool, str, str, str, int], Edge] = {}
        first_kind: dict[str, str] = {}  # External name → target_kind of its first row (what ON CREATE SET kept)
        for path in sorted(step.edges):
            module = step.modules[path]
            for e in step.edges[path]:
                by_module = e.source == module
                internal = e.target_kind in _INTERNAL
                target = e.target if internal else _external_name(e)
                side = e.target_kind if internal else "external"
                kept[(e.kind, by_module, path if by_module else e.source, side, target, e.line)] = e
                if not internal:
                    first_kind.setdefault(target, e.target_kind)
        for kind in ("CALLS", "IMPORTS", "INHERITS"):
            for side, internal in (("internal", True), ("external", False)):
                chosen = [(k, e) for k, e in kept.items() if k[0] == kind and (k[3] != "external") == internal]
                if chosen:
                    rows = (self._created_edge_row(k, e, first_kind) for k, e in chosen)
                    sink.write(f"ingest/edges_{side}_{kind.lower()}_create", _Counted(rows, len(chosen)))

    def _created_edge_row(self, k: tuple[str, bool, str, str, str, int], e: Edge, first_kind: dict[str, str]) -> dict:
        _, by_module, source, side, target, line = k
        row = {"line": line, "resolution": e.resolution, "confidence": e.confidence, "through": e.through or None,
               "type_only": e.type_only or None, "source_module": self._key(source) if by_module else None,
               "source_symbol": None if by_module else self._key(source)}
        if side != "external":
            row["target_module"] = self._key(target) if side == "module" else None
            row["target_symbol"] = self._key(target) if side == "symbol" else None
        else:
            row["target"] = target
            row["target_kind"] = first_kind[target]
        return row

    def _document_row(self, d: Document) -> dict:
        return {"key": self._key(d.path), "path": d.path, "kind": d.kind, "title": d.title, "error": d.error,
                "chunks": [{"ordinal": c.ordinal, "heading": c.heading, "text": c.text, "start_line": c.start_line,
                            "end_line": c.end_line} for c in d.chunks]}


def _external_name(e: Edge) -> str:
    return e.target if e.target_kind != "unresolved" else f"<unresolved>.{e.target}"


def _fold_symbols(rows: Iterable[dict]) -> list[dict]:
    """One row per symbol key, as if the rows sharing a key (a name two files of one module define) were written one
    after the other: the last row's properties, and the labels left by "a change of kind drops the kind labels and
    Test, else they add up" (`labels`). A MERGE of several rows with one key in one statement does not see them one
    after the other (its label removal reads the kind before any row's SET), so symbols_put too takes folded rows:
    `first_kind` and `reset` (the kind changed between the rows) say whether the labels a node had are dropped."""
    folded: dict[str, dict] = {}
    for row in rows:
        before = folded.get(row["key"])
        same = before is not None and before["kind"] == row["kind"]
        labels = set(before["labels"]) if same else set()
        labels.add(row.pop("label"))
        if row.pop("test"):
            labels.add("Test")
        folded[row["key"]] = {**row, "labels": sorted(labels),
                              "first_kind": row["kind"] if before is None else before["first_kind"],
                              "reset": before is not None and (before["reset"] or not same)}
    return list(folded.values())


def _defines_key(row: dict) -> tuple:
    return row["child"], row["parent_module"], row["parent_symbol"]


_TEST_FILE = re.compile(r"(.*/)?(tests?/.*|test_[^/]*\.py|[^/]*_test\.(py|go))")


def is_test(path: str, name: str, kind: str) -> bool:
    """A test function or method as kg's queries see one (tests_for.cypher uses the same rule): named test*, in a
    tests/ or test/ folder or a test_*.py, *_test.py or *_test.go file. Labelled :Test so Browser can colour it."""
    return kind in ("function", "method") and name.lower().startswith("test") and bool(_TEST_FILE.fullmatch(path))


class _Counted:
    """Rows made as they are sent, with their number known beforehand (for the timings)."""

    def __init__(self, rows: Iterable[dict], count: int) -> None:
        self.rows, self.count = rows, count

    def __iter__(self) -> Iterator[dict]:
        return iter(self.rows)

    def __len__(self) -> int:
        return self.count


class _Timed:
    """A Store or Transaction whose named writes are timed into `timings` (when given). `steps`: the write is a bulk
    one that marked its repository as being written, so `step` records where it is (one transaction never needs to:
    it is all written or not at all)."""

    def __init__(self, sink: Store | Transaction, timings: dict[str, dict[str, float]] | None,
                 steps: bool = False) -> None:
        self.sink, self.timings, self.steps = sink, timings, steps

    def step(self, name: str, repo: str) -> None:
        if self.steps:
            self.sink.write("ingest/repo_writing_step_put", repo=repo, step=name)

    def write(self, name: str, rows: list[dict] | None = None, /, **params: Any) -> None:
        began = time.perf_counter()
        self.sink.write(name, rows, **params)
        if self.timings is not None:
            entry = self.timings.setdefault(name, {"calls": 0, "rows": 0, "seconds": 0.0})
            entry["calls"] += 1
            entry["rows"] += len(rows) if rows is not None else 0
            entry["seconds"] = round(entry["seconds"] + time.perf_counter() - began, 4)
