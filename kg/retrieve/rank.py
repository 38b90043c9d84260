"""From a task to ranked files: five signals, each a ranking of its own, fused by a weighted sum of scores.

    names     the code names the text mentions (kg.retrieve.text) looked up exactly; a file scores by the names it
              defines, each weighted by its shape (a traceback frame beats a bare identifier) and its rarity, and
              counted once per file however many of its symbols carry the name
    fulltext  Lucene (BM25) over each file's words and over each symbol's words (`module_words`, `symbol_words`)
    bodies    BM25 over the source of each function, method and class with the repository's own statistics
              (kg.retrieve.bodies): the code that must change shares words with a report that names none of it
    phrases   runs of the task's words found verbatim in the project's string literals (kg.retrieve.phrases): a
              pasted error message leads to the code that prints it
    vectors   the task's embedding against symbol and module embeddings (`symbol_embedding`, `module_embedding`)
    graph     personalised PageRank over the CALLS/IMPORTS/INHERITS ties of the best files of the other signals,
              so a file several hits lean on rises

Each signal answers alone (`signals=`), so its worth can be measured alone; the fused ranking is what `kg context`
uses. Fusion sums the signals' scores, each scaled to its best file (CombSUM), weighted; on the localization set
it beat reciprocal-rank fusion at every constant tried (bench/localization.py). A signal that cannot run (no
embeddings yet, no model installed) is left out and named in `missing`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import sub
from typing import Any

from kg.retrieve.text import FRAME_BOOST, WEIGHTS, TaskText, vendored
from kg.retrieve.ties import neighbourhood as ties_of
from kg.store import Store

SIGNALS = ("names", "fulltext", "bodies", "phrases", "vectors", "graph")
# The fusion's signals by default. `bodies` is opt-in (`--signal bodies`, `signals=`): alone it is the best single
# signal offline, but in the fusion it did not raise acc@1 on the fresh CLI run (bench/localization.py, the note).
DEFAULT_SIGNALS = ("names", "fulltext", "phrases", "vectors", "graph")
DEPTH = 50  # files each signal contributes to the fusion
QUERY_WORDS = 200  # words of a task sent to Lucene: its idf weighs them, so rare telling words must not be cut
# What the names signal's 1.0 in the fusion is worth at least: a confident mention (a dotted name's weight, 2.0)
# found in one file only, i.e. 2.0 × log(1 + files). A task whose only hits are weaker (a plain word that is also a
# module's name, a common method name) gives the names signal that much less say; a stronger best file is 1.
NAMES_CONFIDENT = 2.0


@dataclass
class Evidence:
    """Why a file is in a signal's ranking: a few short reasons (the names, symbols or words that matched)."""

    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)  # dotted names of the symbols that matched, best first

    def add(self, score: float, reason: str | None = None, symbol: str | None = None) -> None:
        self.score += score
        if reason and reason not in self.reasons and len(self.reasons) < 6:
            self.reasons.append(reason)
        if symbol and symbol not in self.symbols and len(self.symbols) < 6:
            self.symbols.append(symbol)


@dataclass
class SignalRanking:
    name: str
    files: list[tuple[str, Evidence]]  # best first
    scale: float | None = None  # the score that counts 1 in the fusion; None: the best file's

    def rank_of(self) -> dict[str, int]:
        return {path: i for i, (path, _) in enumerate(self.files, start=1)}


@dataclass
class RankedFile:
    path: str
    score: float
    signals: dict[str, int]  # signal → rank of the file in it
    reasons: dict[str, list[str]]  # signal → reasons
    symbols: list[str] = field(default_factory=list)  # the symbols that matched, in the order the signals gave them

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "score": round(self.score, 5), "signals": self.signals, "reasons": self.reasons,
                "symbols": self.symbols}


@dataclass
class Weights:
    """How much each signal counts in the fusion, and how much a test file is worth next to a source file."""

    names: float = 1.0
    fulltext: float = 1.0
    bodies: float = 1.0
    phrases: float = 1.5  # best of 0–2 on all 26 localization reports; held out, flask alone picks 1.0 (the note)
    vectors: float = 1.0
    graph: float = 0.5
    tests: float = 0.5

    def of(self, signal: str) -> float:
        return float(getattr(self, signal))


# ── names ───────────────────────────────────────────────────────────────────────────────────────────────────────


def names_signal(store: Store, repo: str, task: TaskText, files_in_repo: int) -> SignalRanking:
    """Files defining the mentioned names, each name worth its shape's weight times its rarity (idf over files)."""
    symbol_texts = {m.text: m for m in task.mentions if m.shape not in ("file",)}
    module_texts = {m.text: m for m in task.mentions if m.shape in ("file", "frame", "dotted")}
    plain: dict[str, str] = {}  # a module name looked up for a plain word of the text → that word
    for word in task.query_words(24):  # a word that is a module's name: `junitxml`, `skipping`, `blueprint(s)`
        if word in task.products:
            continue  # `Python 3.7`: the language, not the project's python.py
        for text in (word, word + "s"):
            if text not in module_texts:
                module_texts[text] = None
                plain[text] = word
    rows = store.read("retrieve/names", repo=repo, names=list(symbol_texts), leaves=module_leaves(module_texts),
                      per_name=50)
    by_text: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_text[r["text"]].append(r)
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    n = max(files_in_repo, 1)
    frames = bool(task.frames)
    if frames:
        _frames(task, by_text, evidence, math.log(1 + n))
    for text, hits in by_text.items():
        mention = symbol_texts.get(text) if hits[0]["kind"] != "module" else module_texts.get(text)
        if frames and mention is not None and mention.shape == "frame":
            continue  # scored by `_frames`, file by file
        weight = mention.weight if mention is not None else 0.5
        qualified = [h for h in hits if h["qualified"]]
        if mention is not None and "." in text and mention.shape != "file" and qualified:
            hits = qualified  # `Class.method`: the ones whose dotted name ends so
        paths = {h["path"] for h in hits}
        idf = math.log(1 + n / len(paths))
        counted: set[str] = set()
        for h in sorted(hits, key=lambda h: h["kind"] == "variable"):
            # a name counts once per file: five `collect` methods in one file are not five mentions of it
            kind = h["kind"]
            if kind != "module":
                reason = f"{kind} {h['qname']}"
            elif mention is None:  # a plain word of the text that is also a module's name, not a file it named
                reason = f'the word "{plain.get(text, text)}" names {h["path"]}'
            else:
                reason = f"file {h['path']}"
            score = 0.0 if h["path"] in counted else weight * idf / (1 + 0.5 * (kind == "variable"))
            counted.add(h["path"])
            evidence[h["path"]].add(score, reason, h["qname"] if kind != "module" else None)
    ranked = _ranked(evidence)
    top = ranked[0][1].score if ranked else 0.0
    return SignalRanking("names", ranked, max(top, NAMES_CONFIDENT * math.log(1 + n)))


def _frames(task: TaskText, by_text: dict[str, list[dict[str, Any]]], evidence: dict[str, Evidence],
            idf: float) -> None:
    """A traceback's files of the project, the innermost first: the error happened in the innermost one, and the
    outer ones (the runner, the entry point every error passes through) only led there. A frame whose file is not
    the project's own (the standard library, a dependency, the user's script, a vendored copy such as
    `requests/packages/urllib3`) says nothing about where to fix, and its function is not looked up elsewhere. A
    file counts once, at its innermost frame, however many frames of the traceback ran in it."""
    depth = 0
    for frame in task.frames:
        paths = sorted({h["path"] for h in by_text.get(frame.path, []) if h["kind"] == "module"
                        and not vendored(h["path"])})
        symbols = {h["path"]: h["qname"] for h in by_text.get(frame.func or "", []) if h["kind"] != "module"}
        reason = f"frame {frame.path}:{frame.line}" + (f" in {frame.func}" if frame.func else "")
        fresh = [p for p in paths if not evidence[p].score]
        for p in paths:
            if p not in fresh:  # scored at an inner frame already; its function still ran (the code to show)
                evidence[p].add(0.0, reason, symbols.get(p))
        if not fresh:
            continue
        weight = WEIGHTS["frame"] * (1 + FRAME_BOOST * 0.5 ** depth) * idf / len(paths)
        depth += 1
        for p in fresh:
            evidence[p].add(weight, reason, symbols.get(p))


def module_leaves(texts: Iterable[str]) -> dict[str, list[str]]:
    """Each text's last path part and last dotted part → the texts: a module whose path or dotted name ends with
    a text shares one of them, so `retrieve/names` compares a module with those texts only."""
    leaves: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        for leaf in {text.rsplit("/", 1)[-1], text.rsplit(".", 1)[-1]}:
            leaves[leaf].append(text)
    return dict(leaves)


# ── full text ───────────────────────────────────────────────────────────────────────────────────────────────────


def lucene_query(words: Iterable[str], boosted: frozenset[str] = frozenset()) -> str:
    """Words OR-ed for Lucene, each quoted so no word is read as an operator (AND, NOT, TO) or syntax; `boosted`
    words (a task's first line) count twice."""
    return " ".join(f'"{w}"^2' if w in boosted else f'"{w}"' for w in words if w.replace("_", "").isalnum())


def fulltext_signal(store: Store, repo: str, task: TaskText, symbol_share: float = 0.5,
                    repos: int = 1) -> SignalRanking:
    """BM25 of each file's words, plus the best symbols' BM25 credited to their files (names matter more there).
    The Lucene indexes hold every repository, so more candidates are fetched the more repositories share them:
    another repository's copies of the same files must not crowd this one's out of the answer."""
    spread = 5 * min(repos, 20)
    query = lucene_query(task.query_words(QUERY_WORDS), task.title_words)
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    if not query:
        return SignalRanking("fulltext", [])
    modules = store.read("retrieve/fulltext_modules", repo=repo, query=query, limit=DEPTH,
                         candidates=DEPTH * spread)
    top = modules[0]["score"] if modules else 1.0
    for r in modules:
        evidence[r["path"]].add(r["score"] / top)
    symbols = store.read("retrieve/fulltext_symbols", repo=repo, query=query, limit=100, candidates=100 * spread)
    top = symbols[0]["score"] if symbols else 1.0
    seen: dict[str, int] = defaultdict(int)
    for r in symbols:
        seen[r["path"]] += 1
        if seen[r["path"]] <= 3:  # a file's three best symbols count, so a big file is not favoured for its size
            evidence[r["path"]].add(symbol_share * r["score"] / top / seen[r["path"]], f"{r['kind']} {r['qname']}",
                                    r["qname"])
    return SignalRanking("fulltext", _ranked(evidence))


# ── vectors ─────────────────────────────────────────────────────────────────────────────────────────────────────


def vectors_signal(store: Store, repo: str, vector: list[float], repos: int = 1,
                   module_share: float = 0.5) -> SignalRanking:
    """Files of the symbols nearest the task's embedding (a file's best three count), plus nearest modules. The
    vector index is shared by every repository, so the nearest `limit × (repos + 1)` are fetched and filtered."""
    evidence: dict[str, Evidence] = defaultdict(Evidence)
    seen: dict[str, int] = defaultdict(int)
    spread = min(repos + 1, 20)
    for r in store.read("retrieve/vector_symbols", repo=repo, vector=vector, limit=100, candidates=100 * spread):
        seen[r["path"]] += 1
        if seen[r["path"]] <= 3:
            evidence[r["path"]].add(r["score"] / seen[r["path"]], f"{r['kind']} {r['qname']} ({r['score']:.2f})",
                                    r["qname"])
    for r in store.read("retrieve/vector_modules", repo=repo, vector=vector, limit=DEPTH, candidates=DEPTH * spread):
        evidence[r["path"]].add(module_share * r["score"])
    return SignalRanking("vectors", _ranked(evidence))


# ── graph ───────────────────────────────────────────────────────────────────────────────────────────────────────


def graph_signal(store: Store, repo: str, seeds: dict[str, float], alpha: float = 0.5,
                 version: object = None) -> SignalRanking:
    """Personalised PageRank from the seed files over their CALLS/IMPORTS/INHERITS ties (both directions: a
    file that calls into the seeds matters as much as one they call), restarting at the seeds. `version` (the
    repository's last ingest) lets a warm process read the ties from memory (kg.retrieve.ties)."""
    if not seeds:
        return SignalRanking("graph", [])
    rows = ties_of(store, repo, list(seeds), version)
    ties: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        w = math.log1p(r["n"])
        for a, b in ((r["src"], r["dst"]), (r["dst"], r["src"])):
            ties[a][b] = ties[a].get(b, 0.0) + w
    total = sum(seeds.values()) or 1.0
    scores = personalized_pagerank(ties, {p: s / total for p, s in seeds.items()}, alpha)
    evidence: dict[str, Evidence] = {}
    for path, score in scores.items():
        near = sorted(seeds.keys() & ties.get(path, {}).keys())[:3]
        evidence[path] = Evidence(score, [f"tied to {', '.join(near)}"] if near else [])
    return SignalRanking("graph", _ranked(evidence))


def personalized_pagerank(ties: dict[str, dict[str, float]], restart: dict[str, float], alpha: float,
                          iterations: int = 50, tolerance: float = 1e-6) -> dict[str, float]:
    """Power iteration on a small weighted graph (a few hundred files at most; networkx's pagerank would bring
    scipy, 100 MB, for this). A node without ties gives its mass back to the restart distribution. Each step
    shrinks the error by `alpha`, so it stops once a step moves the ranks by less than `tolerance` in all."""
    nodes = set(ties) | set(restart) | {b for t in ties.values() for b in t}
    base = {n: (1 - alpha) * restart.get(n, 0.0) for n in nodes}
    rank = {n: restart.get(n, 0.0) for n in base}
    out = {n: sum(ties[n].values()) for n in ties}
    for _ in range(iterations):
        nxt = dict(base)
        dangling = 0.0
        for n, r in rank.items():
            if not out.get(n):
                dangling += r
                continue
            if r:  # hot loop: adding zeros changes nothing; `ar * w / o` is `alpha * r * w / out[n]`
                ar, o = alpha * r, out[n]
                for m, w in ties[n].items():
                    nxt[m] += ar * w / o
        for n, share in restart.items():
            nxt[n] += alpha * dangling * share
        moved = sum(map(abs, map(sub, nxt.values(), rank.values())))  # both dicts list the nodes in one order
        rank = nxt
        if moved < tolerance:
            break
    return rank


# ── fusion ──────────────────────────────────────────────────────────────────────────────────────────────────────


def fuse(rankings: list[SignalRanking], weights: Weights, depth: int = DEPTH) -> list[RankedFile]:
    """Weighted sum of each signal's scores, each scaled so its best file is 1 (CombSUM): a file several signals
    agree on rises, and a file one signal finds far ahead of the rest keeps that lead (reciprocal ranks would
    flatten it). Test files count `weights.tests` as much (a report is rarely fixed in a test)."""
    fused: dict[str, RankedFile] = {}
    for ranking in rankings:
        w = weights.of(ranking.name)
        top = ranking.scale or (ranking.files[0][1].score if ranking.files else 0.0)
        for rank, (path, ev) in enumerate(ranking.files[:depth], start=1):
            f = fused.setdefault(path, RankedFile(path, 0.0, {}, {}))
            f.score += w * (ev.score / top if top > 0 else 0.0)
            f.signals[ranking.name] = rank
            if ev.reasons:
                f.reasons[ranking.name] = ev.reasons
            f.symbols += [q for q in ev.symbols if q not in f.symbols]
    for f in fused.values():
        if is_test(f.path):
            f.score *= weights.tests
    return sorted(fused.values(), key=lambda f: (-f.score, f.path))


def is_test(path: str) -> bool:
    """A test file: named so, or under a `tests`/`__tests__` folder anywhere or a top-level `test`/`testing`
    folder (a package's own `test` module, such as django.test, is library code)."""
    parts = path.lower().split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith(("_test.py", "_tests.py", ".test.js", ".test.ts",
                                                        ".spec.js", ".spec.ts", "_test.go"))
            or name == "conftest.py" or any(p in ("tests", "__tests__") for p in parts[:-1])
            or len(parts) > 1 and parts[0] in ("test", "testing"))


def _ranked(evidence: dict[str, Evidence]) -> list[tuple[str, Evidence]]:
    return sorted(((p, e) for p, e in evidence.items() if e.score > 0), key=lambda pe: (-pe[1].score, pe[0]))
