"""The bodies signal: BM25 over the source of each function, method and class, with one repository's statistics.

A bug report often names nothing of the file to fix, yet shares words with the code that must change: the names
the body uses, its strings, its comments. Lucene's indexes (the fulltext signal) hold names, signatures and
docstrings, and span every repository, so their idf and length norms mix projects (and count deleted documents
until segments merge). This index is the repository's own: built in memory from the files on disk and the symbol
spans in the graph, identifiers split the way a task's words are (kg.retrieve.text), test files left out (the
fusion weighs them down anyway, and they are half of a big project). It is kept per process, so a warm process
(MCP, the agent) re-reads only the files whose content hash changed; a file scores by its best symbol.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kg.retrieve.rank import Evidence, SignalRanking, _ranked, is_test
from kg.retrieve.text import TaskText, code_tokens
from kg.source_files import read_source
from kg.store import Store

K1, B = 1.2, 0.75  # BM25's usual constants, not tuned


@dataclass
class _Doc:
    path: str
    qname: str
    kind: str
    length: int
    terms: Counter[str]


@dataclass
class BodyIndex:
    """One repository's symbol bodies: term counts per symbol and the postings BM25 reads."""

    root: Path
    hashes: dict[str, str | None] = field(default_factory=dict)  # path → content hash indexed
    by_file: dict[str, list[_Doc]] = field(default_factory=dict)
    postings: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # term → (doc, BM25 term weight)
    docs: list[_Doc] = field(default_factory=list)
    version: object = None  # the repository's last ingest when the index was refreshed

    def refresh(self, store: Store, repo: str, version: object = None) -> None:
        """Index the files whose hash changed since the last call, forget removed ones, rebuild the postings. A
        `version` equal to the last one (the repository's last ingest) means nothing changed: no query at all."""
        if version is not None and version == self.version:
            return
        self.version = version
        files = {r["path"]: r["hash"] for r in store.read("retrieve/body_files", repo=repo)
                 if not is_test(r["path"])}
        stale = [p for p, h in files.items() if h is None or self.hashes.get(p) != h]
        gone = self.hashes.keys() - files.keys()
        if not stale and not gone:
            return
        for p in gone:
            self.by_file.pop(p, None)
            self.hashes.pop(p, None)
        spans: dict[str, list[dict]] = defaultdict(list)
        for r in store.read("retrieve/body_spans", repo=repo, paths=stale):
            spans[r["path"]].append(r)
        for p in stale:
            self.by_file[p] = self._read(p, spans.get(p, []))
            self.hashes[p] = files[p]
        self.docs = [d for docs in self.by_file.values() for d in docs]
        avg_length = sum(d.length for d in self.docs) / max(len(self.docs), 1)
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, d in enumerate(self.docs):
            norm = K1 * (1 - B + B * d.length / avg_length)
            for term, count in d.terms.items():  # BM25's term weight, so a query only multiplies by idf and adds
                postings[term].append((i, count * (K1 + 1) / (count + norm)))
        self.postings = dict(postings)

    def _read(self, path: str, spans: list[dict]) -> list[_Doc]:
        text = read_source(self.root, path)
        if text is None:  # not a plain file of the project any more, or larger than anything ingest parses
            return []
        lines = text.splitlines()
        per_line = [code_tokens(line) for line in lines]
        docs = []
        for s in spans:
            start, end = max((s["line"] or 1) - 1, 0), s["end_line"] or s["line"] or 1
            terms: Counter[str] = Counter()
            for tokens in per_line[start:end]:
                terms.update(tokens)
            if terms:
                docs.append(_Doc(path, s["qname"], s["kind"], sum(terms.values()), terms))
        return docs

    def search(self, words: list[str], limit: int = 100) -> list[tuple[_Doc, float]]:
        """The symbols whose bodies match the words best (BM25, each word once)."""
        n = len(self.docs)
        scores: dict[int, float] = defaultdict(float)
        for w in set(words):
            posting = self.postings.get(w)
            if not posting:
                continue
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for i, weight in posting:
                scores[i] += idf * weight
        best = sorted(scores.items(), key=lambda kv: -kv[1])[:limit]
        return [(self.docs[i], s) for i, s in best]


_INDEXES: dict[tuple[str, str], BodyIndex] = {}
_LOCK = threading.Lock()


def index_for(store: Store, repo: str, root: Path, version: object = None) -> BodyIndex:
    """The repository's body index, kept for the life of the process and brought up to date when the repository
    was ingested since (the content hashes decide what is re-read)."""
    key = (repo, str(root))
    with _LOCK:
        index = _INDEXES.setdefault(key, BodyIndex(root))
        index.refresh(store, repo, version)
        return index


def bodies_signal(store: Store, repo: str, task: TaskText, root: Path | None,
                  version: object = None) -> SignalRanking | str:
    """Files ranked by their best symbol body's BM25 against the task's words, or why the signal cannot run.
    `version` (the repository's last ingest) lets a warm process skip the check for changed files."""
    if root is None or not root.is_dir():
        return f"the repository's files are not on disk at {root or 'its recorded root'}: re-ingest it from there"
    index = index_for(store, repo, root, version)
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    for doc, score in index.search(list(task.words), limit=200):
        e = evidence[doc.path]
        e.add(score if e.score == 0 else 0.0, f"{doc.kind} {doc.qname} (body)", doc.qname)
    return SignalRanking("bodies", _ranked(evidence))
