"""Embeddings in the graph, kept current like everything else: only what changed is embedded again.

Each symbol (not variables) and module outside the tests gets the vector of a short text (a symbol's name split
into words, signature and docstring start; a module's path and top-level names) and an `embed_key`: a hash of
that text and the model. Tests are found by name, full text and the tests section instead (embedding them would
double the cost), and document chunks by full text (long, so slow to embed, and rewritten whole on every edit).
A sync reads the texts of a repository (or of just the files an ingest rewrote), embeds those whose key differs,
in batches, and stores the vectors with `db.create.setNodeVectorProperty`. An unchanged symbol keeps its vector
across any number of ingests; a one-file edit embeds at most that file's nodes.

The vector indexes are made with the model's dimensions; when the stored indexes have others (the model
changed), they are dropped, the old vectors forgotten and everything embedded again — never a crash.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kg.retrieve.embed import Embedder
from kg.retrieve.rank import is_test
from kg.retrieve.text import split_identifier
from kg.store import Store

BATCH = 256  # nodes embedded and written per round trip
DOC_TOKENS = 64  # word pieces of a symbol's text: name, signature and the docstring's start (cost is linear in it)
Progress = Callable[[str, int, int], None]


@dataclass
class EmbedReport:
    repo: str
    model: str
    considered: int = 0
    embedded: dict[str, int] = field(default_factory=dict)  # label → count
    rebuilt_index: bool = False
    dropped: int = 0  # stale vectors removed from nodes that are not embedded any more
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.embedded.values())

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "total": self.total}


def node_text(row: dict[str, Any]) -> str:
    """The text embedded for one row of `retrieve/embed_rows`: words first (the model reads prose best), then the
    signature, then the docstring; the tokenizer cuts it at DOC_TOKENS word pieces."""
    name = row["name"] or ""
    if row["label"] == "Module":
        words = " ".join(split_identifier(row["path"].rsplit(".", 1)[0].replace("/", " ")))
        return f"{words}. module {name} defines:{row['doc'] or ''}"
    owner_and_name = name.rsplit(".", 2)[-2:]
    words = " ".join(p for n in owner_and_name for p in split_identifier(n))
    signature = (row["signature"] or f"{row['kind']} {owner_and_name[-1]}").strip().rstrip(":")
    return f"{words}. {signature}\n{row['doc'] or ''}".strip()


def embed_key(model_id: str, text: str) -> str:
    return hashlib.sha1(f"{model_id}\n{text}".encode()).hexdigest()[:20]


def ensure_indexes(store: Store, dims: int) -> bool:
    """Vector indexes with `dims` dimensions; True when wrong ones were dropped (their vectors forgotten)."""
    rows = store.read("retrieve/vector_indexes")
    rebuilt = any(r["dims"] != dims for r in rows)
    if rebuilt:
        store.write_statements("retrieve/vector_indexes_drop")
        store.write("retrieve/embed_clear", dims=dims)
    if rebuilt or len(rows) < 2:
        store.write_statements("retrieve/vector_indexes_create", dims=dims)
    _dims.pop(store.settings.uri, None)
    return rebuilt


def index_dims(store: Store, fresh: bool = False) -> int | None:
    """The dimensions of the symbol vector index, or None when there is none yet. Asked once per process and
    server (a warm process would ask per task otherwise): `fresh` asks again, as a caller does when a vector
    search refused the task's vector (another process rebuilt the indexes for another model)."""
    where = store.settings.uri
    if fresh or _dims.get(where) is None:
        rows = {r["name"]: r["dims"] for r in store.read("retrieve/vector_indexes")}
        _dims[where] = rows.get("symbol_embedding")
    return _dims[where]


_dims: dict[str, int | None] = {}  # server → the symbol index's dimensions last seen


def sync(store: Store, repo: str, embedder: Embedder, paths: list[str] | None = None,
         progress: Progress | None = None) -> EmbedReport:
    """Embed what is new or changed in `repo` (every file, or just `paths`) and store the vectors."""
    began = time.perf_counter()
    report = EmbedReport(repo, embedder.model_id)
    report.rebuilt_index = ensure_indexes(store, embedder.dims)
    rows = store.read("retrieve/embed_rows", repo=repo, paths=paths)
    report.considered = len(rows)
    todo = []
    stale = []  # vectors an earlier rule or run left on nodes that are not embedded now
    for row in rows:
        if is_test(row["path"]):
            # tests are found by name, full text and the tests section; embedding them would double the cost
            if row["embed_key"] is not None:
                stale.append(row["key"])
            continue
        text = node_text(row)
        key = embed_key(embedder.model_id, text)
        if key != row["embed_key"]:
            todo.append((row["label"], row["key"], text, key))
    if stale:
        store.write("retrieve/embed_drop", keys=stale)
        report.dropped = len(stale)
    todo.sort(key=lambda t: len(t[2]))  # similar lengths batch together: less padding, faster
    tick = progress or (lambda stage, done, total: None)
    tick("embed", 0, len(todo))
    for start in range(0, len(todo), BATCH):
        batch = todo[start:start + BATCH]
        vectors = embedder.embed([t[2] for t in batch], DOC_TOKENS)
        by_label: dict[str, list[dict[str, Any]]] = {}
        for (label, key, _, ekey), vector in zip(batch, vectors, strict=True):
            by_label.setdefault(label, []).append({"key": key, "vector": vector, "embed_key": ekey})
        for label, put in by_label.items():
            store.write(f"retrieve/embed_put_{label.lower()}s", put)
            report.embedded[label] = report.embedded.get(label, 0) + len(put)
        tick("embed", min(start + BATCH, len(todo)), len(todo))
    report.seconds = round(time.perf_counter() - began, 3)
    return report
