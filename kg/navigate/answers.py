"""The navigation questions as library functions: resolve the symbols, run the named query, shape the answer.

The CLI and the MCP server call these same functions, so a person and an agent get the same answer. Every answer
knows how many rows there were before `limit` cut it, so both can say what was left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import InputError, shorten
from kg.navigate import names, reach
from kg.navigate.evidence import EVIDENCE, combine
from kg.navigate.targets import (
    REPO_HINT,
    Target,
    at_line,
    elsewhere_notes,
    pick_repo,
    place,
    repo_here,
    resolve,
    resolve_all,
    resolve_rows,
)
from kg.unfinished import note_for, require_finished, unfinished_notes

if TYPE_CHECKING:
    from kg.navigate import value_uses
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

MAX_DEPTH = 10  # the bound written into the queries' patterns
FETCH_CAP = 5000  # rows fetched to count what a limit cuts; more than this is reported as "at least"
ALL = 2**62  # `limit=None`: every row (machine output is complete unless a limit is asked for)
EDGE_EVIDENCE = ("all", "static", "observed")  # which CALLS to follow: ingest's, `kg observe`'s, or both


@dataclass
class Answer:
    """Rows of one question, cut to `limit`, with what was asked and what was cut."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]]
    total: int
    limit: int | None  # None: no limit was asked for, every row is here
    noun: str = "rows"
    notes: list[str] = field(default_factory=list)
    target: Target | None = None
    # `total` is a lower bound (the rows were not all counted); None: it is when a named query's fetch hit FETCH_CAP
    at_least: bool | None = None

    @property
    def truncated(self) -> bool:
        return self.total > len(self.rows)

    def truncation_note(self) -> str | None:
        if not self.truncated:
            return None
        counted = self.at_least if self.at_least is not None else self.total >= FETCH_CAP and self.limit is not None
        total = f"at least {self.total:,}" if counted else f"{self.total:,}"
        return f"showing {len(self.rows):,} of {total} {self.noun} (raise the limit to see more)"

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "target": self.target.to_dict() if self.target else None,
                "total": self.total, "shown": len(self.rows), "truncated": self.truncated, "limit": self.limit,
                "notes": self.notes + ([self.truncation_note()] if self.truncated else []), "rows": self.rows}


def fetch(store: Store, name: str, limit: int | None, **params: Any) -> tuple[list[dict[str, Any]], int]:
    """Rows of a named query cut to `limit` (None: all of them), and how many there were (up to FETCH_CAP)."""
    if limit is None:
        rows = store.read(name, limit=ALL, **params)
        return rows, len(rows)
    if limit < 1:
        raise InputError(f"limit must be at least 1, not {limit}")
    rows = store.read(name, limit=max(limit, FETCH_CAP), **params)
    return rows[:limit], len(rows)


def _cut(rows: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1, not {limit}")
    return rows if limit is None else rows[:limit]


def _edges(evidence: str) -> str:
    if evidence not in EDGE_EVIDENCE:
        raise InputError(f"evidence must be one of {', '.join(EDGE_EVIDENCE)}, not {shorten(evidence, 40)}")
    return evidence


def _depth(depth: int) -> int:
    if not 1 <= depth <= MAX_DEPTH:
        raise InputError(f"depth must be between 1 and {MAX_DEPTH}, not {depth}")
    return depth


def callers(store: Store, symbol: str, repo: str | None = None, depth: int = 1, min_confidence: float = 0.0,
            limit: int | None = 50, evidence: str = "all") -> Answer:
    """Who calls `symbol`, each caller once at its shortest distance with its strongest chain (see reach.py)."""
    (target,), rows, total, unfinished = _answer(store, "callers", [symbol], repo, depth, min_confidence, limit,
                                                 evidence)
    return Answer(f"callers of {target.qname} (depth ≤ {depth})", ["depth", "caller", "kind", "call_path", "call_line",
                  "path", "line", "calls", "resolution", "confidence"], rows, total, limit, "callers",
                  elsewhere_notes([target]) + unfinished, target=target, at_least=False)


def callees(store: Store, symbol: str, repo: str | None = None, depth: int = 1, min_confidence: float = 0.0,
            limit: int | None = 50, evidence: str = "all") -> Answer:
    """What `symbol` calls, each callee once at its shortest distance with its strongest chain (see reach.py)."""
    (target,), rows, total, unfinished = _answer(store, "callees", [symbol], repo, depth, min_confidence, limit,
                                                 evidence)
    return Answer(f"callees of {target.qname} (depth ≤ {depth})", ["depth", "callee", "kind", "call_path",
                  "call_line", "from", "path", "line", "resolution", "confidence"], rows, total, limit, "callees",
                  elsewhere_notes([target]) + unfinished, target=target, at_least=False)


def _answer(store: Store, question: str, texts: list[str], repo: str | None, depth: int, min_confidence: float,
            limit: int | None, evidence: str, one_request: bool = True
            ) -> tuple[list[Target], list[dict[str, Any]], int, list[str]]:
    """The targets `texts` name and the rows of `question` (callers, callees, impact) about them, cut to `limit`,
    how many there were, and the note when the repository's last ingest did not finish: in one request
    (queries/reach/answer.cypher), which looks the names up, walks and shapes. Its choice of symbols is checked
    against kg.navigate.targets (which raises the errors for unknown and ambiguous names); a `path:line`, a choice
    it made otherwise or `one_request=False` walks a step at a time."""
    _cut([], limit)  # a limit below 1 is refused before anything is read
    texts = [t.strip() for t in texts]
    types = ("CALLS", "IMPORTS", "INHERITS") if question == "impact" else ("CALLS",)
    located = not one_request or any(not t or at_line(t) for t in texts)
    row = None if located else store.read(
        "reach/answer", symbols=texts, repo=repo, here=_cwd(), question=question, depth=_depth(depth),
        types=list(types), min_confidence=min_confidence, evidence=_edges(evidence),
        limit=limit)[0]
    if row is None:
        targets = _one_repo(resolve_all(store, texts, repo), question)
    else:
        here = place(row["repos"] or [])
        targets = _one_repo([resolve_rows(store, t, c, repo, here)
                             for t, c in zip(texts, row["candidates"], strict=True)], question)
    name = {"callers": "caller", "callees": "callee", "impact": "dependent"}[question]
    if row is not None and [(p["repo"], p["qname"]) for p in row["picks"]] == [(t.repo, t.qname) for t in targets]:
        rows = [_SHAPES[question](f) for f in row["found"]]
        rows.sort(key=lambda r: (r["depth"], -r["confidence"], r[name] or ""))
        return targets, rows, row["total"], _unfinished_in(row)
    # The walk a step at a time: a request per step (reach.py), for what the query above could not pick
    repo = targets[0].repo
    qnames = [t.qname for t in targets]
    starts = store.read("reach/changed", repo=repo, qnames=qnames) if question == "impact" else \
        store.read("reach/start", repo=repo, qname=qnames[0])
    rows, total = _walked(store, question, repo, starts, "out" if question == "callees" else "in", depth,
                          min_confidence, limit, evidence, types)
    return targets, rows, total, unfinished_notes(store, repo)


def _unfinished_in(row: dict[str, Any]) -> list[str]:
    """unfinished_notes from what an answer's own request read: the picked repository's row when it is marked."""
    found = row.get("unfinished")
    note = note_for(found["repo"], found["writing"], found["root"], found.get("writing_step")) if found else None
    return [note] if note else []


def _one_repo(targets: list[Target], question: str) -> list[Target]:
    """Callers and callees need a symbol; several targets must be in one repository (as resolve_all says)."""
    repos = sorted({t.repo for t in targets})
    if len(repos) > 1:
        raise InputError(f"the symbols belong to different repositories ({', '.join(repos)}): {REPO_HINT}")
    for target in targets:
        if question in ("callers", "callees") and target.is_module:
            raise InputError(f"{target.qname} is a module; {question} needs a function, method or class "
                             f"(try `kg impact {target.path}`)")
    return targets


def _cwd() -> str:
    """The current folder as repo_at sees it (resolved), "" when it was deleted (text either way: Neo4j plans a
    query once per set of parameter types, and planning the composed answers costs far more than running them)."""
    try:
        return str(Path.cwd().resolve())
    except OSError:
        return ""


def _caller_row(f: dict[str, Any]) -> dict[str, Any]:
    return {"depth": f["depth"], "caller": f["qname"], "kind": f["kind"] or "module", "call_path": f["path"],
            "call_line": f["line"], "path": f["path"], "line": f["start_line"] or 1, "calls": f["via"],
            "resolution": f["resolution"], "confidence": f["weakest"]}


def _callee_row(f: dict[str, Any]) -> dict[str, Any]:
    return {"depth": f["depth"], "callee": f["name"],
            "kind": f["kind"] or ("external" if f["external"] else "module"), "call_path": f["via_path"],
            "call_line": f["line"], "from": f["via"], "path": f["path"],
            "line": None if f["external"] else f["start_line"] or 1, "resolution": f["resolution"],
            "confidence": f["weakest"]}


def _dependent_row(f: dict[str, Any]) -> dict[str, Any]:
    observed, depth = f["observed"], f["depth"]
    kind = "static" if not observed else "observed" if observed == depth else "static+observed"
    return {"depth": depth, "dependent": f["qname"], "kind": f["kind"] or "module", "path": f["path"],
            "line": f["start_line"], "via": f["types"], "reaches": f["reaches"], "confidence": f["weakest"],
            "evidence": kind + (" (stale)" if f["stale"] else "")}


_SHAPES = {"callers": _caller_row, "callees": _callee_row, "impact": _dependent_row}


def _walked(store: Store, question: str, repo: str, starts: list[dict[str, str]], direction: reach.Direction,
            depth: int, min_confidence: float, limit: int | None, evidence: str,
            types: tuple[str, ...] = ("CALLS",)) -> tuple[list[dict[str, Any]], int]:
    """The rows of `question` (`queries/reach/<question>.cypher`) for the nodes a walk from `starts` reaches, cut
    to `limit`, in the walk's order, and how many there were."""
    found = reach.walk(store, repo, starts, direction, _depth(depth), min_confidence, _edges(evidence), types)
    shown = _cut(found, limit)
    rows = store.read(f"reach/{question}", repo=repo, found=[r.param() for r in shown]) if shown else []
    name = {"callers": "caller", "callees": "callee", "impact": "dependent"}[question]
    rows.sort(key=lambda row: (row["depth"], -row["confidence"], row[name] or ""))
    return rows, len(found)


def impact(store: Store, symbols: list[str], repo: str | None = None, depth: int = 5, min_confidence: float = 0.0,
           limit: int | None = 100, evidence: str = "all") -> Answer:
    targets, rows, total, unfinished = _answer(store, "impact", symbols, repo, depth, min_confidence, limit, evidence)
    return _impact_answer(targets, rows, total, depth, limit, unfinished)


def impact_of(store: Store, targets: list[Target], depth: int = 5, min_confidence: float = 0.0,
              limit: int | None = 100, evidence: str = "all") -> Answer:
    """`impact` of targets resolved already (`kg changes`: the symbols a diff touches)."""
    if not targets:
        return Answer("impact of nothing", [], [], 0, limit, "dependents")
    repo = targets[0].repo
    starts = store.read("reach/changed", repo=repo, qnames=[t.qname for t in targets])
    rows, total = _walked(store, "impact", repo, starts, "in", depth, min_confidence, limit, evidence,
                          types=("CALLS", "IMPORTS", "INHERITS"))
    return _impact_answer(targets, rows, total, depth, limit, unfinished_notes(store, repo))


def _impact_answer(targets: list[Target], rows: list[dict[str, Any]], total: int, depth: int,
                   limit: int | None, unfinished: list[str]) -> Answer:
    names = ", ".join(t.qname for t in targets[:3]) + (f" and {len(targets) - 3} more" if len(targets) > 3 else "")
    return Answer(f"impact of {names} (depth ≤ {depth})", ["depth", "dependent", "kind", "path", "line", "via",
                  "reaches", "confidence", "evidence"], rows, total, limit, "dependents",
                  elsewhere_notes(targets) + unfinished,
                  target=targets[0] if len(targets) == 1 else None, at_least=False)


def call_path(store: Store, source: str, target: str, repo: str | None = None, depth: int = 6,
              limit: int | None = 3, evidence: str = "all", one_request: bool = True) -> Answer:
    """The shortest call paths from `source` to `target`: in one request (queries/call_path_answer.cypher) whose
    choice of symbols is checked as `_answer` checks it; a `path:line` or another choice resolves first."""
    texts, depth, evidence = [source.strip(), target.strip()], _depth(depth), _edges(evidence)
    fetched = ALL if limit is None else max(_positive(limit), FETCH_CAP)
    row = None
    if one_request and all(t and not at_line(t) for t in texts):
        row = store.read("call_path_answer", symbols=texts, repo=repo, here=_cwd(), depth=depth, evidence=evidence,
                         limit=fetched)[0]
        here = place(row["repos"] or [])
        a, b = _one_repo([resolve_rows(store, t, c, repo, here)
                          for t, c in zip(texts, row["candidates"], strict=True)], "path")
    else:
        a, b = resolve_all(store, texts, repo)
    for t in (a, b):
        if t.is_module:
            raise InputError(f"{t.qname} is a module; a call path joins functions, methods or classes")
    if row is not None and [(p["repo"], p["qname"]) for p in row["picks"]] == [(a.repo, a.qname), (b.repo, b.qname)]:
        # a map's keys come back in no set order: the columns in call_path's order, as --json printed them
        found = [{"length": p["length"], "confidence": p["confidence"], "steps": p["steps"]} for p in row["paths"]]
        rows, total = (found if limit is None else found[:limit]), len(found)
    else:
        rows, total = fetch(store, "call_path", limit, repo=a.repo, source=a.qname, target=b.qname, depth=depth,
                            evidence=evidence)
    notes = elsewhere_notes([a, b] if a.qname != b.qname else [a])
    notes += _unfinished_in(row) if row is not None else unfinished_notes(store, a.repo)
    notes += [] if rows else [f"{a.qname} does not reach {b.qname} through calls within {depth} steps"]
    return Answer(f"call paths {a.qname} → {b.qname}", ["length", "confidence", "steps"], rows, total, limit,
                  "paths", notes, target=b)


def _positive(limit: int) -> int:
    if limit < 1:
        raise InputError(f"limit must be at least 1, not {limit}")
    return limit


def tests_for(store: Store, symbols: list[str], repo: str | None = None, depth: int = 8, limit: int | None = 100,
              evidence: str = "combined") -> Answer:
    targets = resolve_all(store, symbols, repo)
    return tests_for_targets(store, targets, depth, limit, evidence)


def tests_for_targets(store: Store, targets: list[Target], depth: int = 8, limit: int | None = 100,
                      evidence: str = "combined") -> Answer:
    """Tests that reach the targets by static analysis, that ran them when observed, or both (see evidence.py)."""
    if evidence not in EVIDENCE:
        raise InputError(f"evidence must be one of {', '.join(EVIDENCE)}, not {shorten(evidence, 40)}")
    if not targets:
        return Answer("tests for nothing", [], [], 0, limit, "tests")
    repo, qnames = targets[0].repo, [t.qname for t in targets]
    static = _static_tests(store, repo, qnames, _depth(depth)) if evidence != "observed" else []
    observed = store.read("tests_for_observed", repo=repo, qnames=qnames) if evidence != "static" else []
    state = store.read("tests_observed", repo=repo, functions=[r["test"] for r in static],
                       paths=sorted({r["test"].split("::", 1)[0] for r in static})) if static else []
    runs = len(store.read("observed_runs", repo=repo, limit=1)) if evidence != "static" else 0
    chosen = combine(static, observed, state, evidence, runs)
    names = ", ".join(t.qname for t in targets[:3]) + (f" and {len(targets) - 3} more" if len(targets) > 3 else "")
    return Answer(f"tests for {names} ({evidence} evidence, static depth ≤ {depth})",
                  ["test", "evidence", "distance", "confidence", "calls", "how"], _cut(chosen.rows, limit),
                  len(chosen.rows), limit, "tests",
                  elsewhere_notes(targets) + unfinished_notes(store, repo) + chosen.notes,
                  target=targets[0] if len(targets) == 1 else None)


def _static_tests(store: Store, repo: str, qnames: list[str], depth: int) -> list[dict[str, Any]]:
    """Tests that reach `qnames` through static calls, directly or through a method overriding one on the way: the
    symbols and what reaches them, then twice more the base methods of what was reached and what reaches those."""
    def hits(starts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        walked = reach.walk(store, repo, starts, "in", depth, 0.0, "static")
        return [{"id": s["id"], "depth": s.get("depth", 0), "weakest": s.get("weakest", 1.0)} for s in starts] + \
               [{"id": r.id, "depth": r.depth, "weakest": r.weakest} for r in walked]

    latest = hits(store.read("reach/changed", repo=repo, qnames=qnames))
    reached = list(latest)
    for _ in range(2):
        bases = store.read("reach/overridden", methods=latest, known=sorted({r["id"] for r in reached}))
        if not bases:
            break
        latest = hits(bases)
        reached += latest
    return store.read("reach/tests_for", reached=reached, limit=ALL)


def cycles(store: Store, repo: str | None = None, max_length: int = 4, limit: int | None = 50) -> Answer:
    name = pick_repo(store, repo)
    if not 2 <= max_length <= 8:
        raise InputError(f"max length must be between 2 and 8, not {max_length}")
    from kg.navigate import cycles as import_cycles  # networkx: only kg cycles needs it

    found = import_cycles.shortest_cycles(import_cycles.import_graph(store, name), max_length)
    rows, total = _cut(found, limit), len(found)
    return Answer(f"import cycles in {name} (≤ {max_length} modules)", ["length", "modules", "lines"], rows, total,
                  limit, "cycles", ["lines: where each module imports the next; `kg review` adds the edges to cut"])


def dead_code(store: Store, repo: str | None = None, include_maybe: bool = False, include_public: bool = False,
              limit: int | None = 50) -> Answer:
    """Unused functions, methods and classes, each with why and how sure. Public API (`public`) and uncertain cases
    (`maybe`) are counted in the notes and listed only when asked for."""
    name = pick_repo(store, repo)
    require_finished(store, name, "dead code")  # a missing call edge would make its callee look unused
    rows = settle_properties(store, name, store.read("dead_code", repo=name,
                                                     limit=FETCH_CAP if limit is not None else ALL))
    rows = drop_used_by_name(store, name, rows)
    from kg.navigate.name_dispatch import mark_dispatched  # ast and the files: only dead code reads them

    rows = mark_dispatched(store, name, _repo_root(store, name), rows)
    rows.sort(key=lambda r: (_STATUS_ORDER[r["status"]], r["path"], r["line"]))
    shown = {"dead"} | ({"public"} if include_public else set()) | ({"maybe"} if include_maybe else set())
    kept = [r for r in rows if r["status"] in shown]
    notes = []
    public = sum(r["status"] == "public" for r in rows)
    if public and not include_public:
        notes.append(f"{public} public names of its packages are unused inside the project (other projects may "
                     "use them): `kg dead-code --public` lists them")
    maybe = sum(r["status"] == "maybe" for r in rows)
    if maybe and not include_maybe:
        notes.append(f"{maybe} more may be alive (unresolved or dynamic calls by name, closures, overrides): "
                     "`kg dead-code --maybe` lists them")
    return Answer(f"dead code in {name}", ["status", "symbol", "kind", "path", "line", "lines", "confidence", "why"],
                  _cut(kept, limit), len(kept), limit, "symbols", notes)


_STATUS_ORDER = {"dead": 0, "public": 1, "maybe": 2}


def settle_properties(store: Store, repo: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Decide the properties the graph cannot: it records calls, not attribute reads, so a property counts as used
    when `.name` is read (not called) anywhere in the repository's code files. Without the files (moved, or the
    graph is elsewhere) a property stays `maybe`."""
    names = {r["symbol"].rsplit(".", 1)[-1] for r in rows if r.get("property")}
    if not names:
        return rows
    read = read_as_attributes(store, repo, names)
    if read is None:
        return rows
    settled = []
    for row in rows:
        name = row["symbol"].rsplit(".", 1)[-1]
        if not row.get("property"):
            settled.append(row)
        elif name not in read:
            status = "public" if row.get("public") else "dead"
            settled.append({**row, "status": status, "confidence": 0.7 if status == "dead" else 0.4,
                            "why": f"a property nothing in the project reads (no `.{name}` outside calls)"})
    return settled


def drop_used_by_name(store: Store, repo: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leave out what its own module uses by name without a call edge (`staticmethod(f)`, `X.as_view()`, a class
    passed as a value: kg.navigate.value_uses). Without the files the rows stay as the graph has them."""
    root = _repo_root(store, repo)
    if root is None or not rows:
        return rows
    from kg.navigate import value_uses  # tokenize: only dead code reads the files

    candidates: dict[str, list[value_uses.Candidate]] = {}
    for r in rows:
        candidates.setdefault(r["path"], []).append(_candidate(r))
    used = value_uses.used_in_files(root, candidates)
    return [r for r in rows if (r["path"], _candidate(r)) not in used]


def _candidate(row: dict[str, Any]) -> value_uses.Candidate:
    from kg.navigate import value_uses

    start = row["line"] or 0
    return value_uses.Candidate(row["symbol"].rsplit(".", 1)[-1], row["kind"], start,
                                start + max((row.get("lines") or 1) - 1, 0))


def _repo_root(store: Store, repo: str) -> Path | None:
    """The folder `repo` was ingested from, when it is still there."""
    roots = [r["root"] for r in store.read("repos") if r["repo"] == repo]
    root = Path(roots[0]) if roots and roots[0] else None
    return root if root is not None and root.is_dir() else None


def read_as_attributes(store: Store, repo: str, names: set[str]) -> set[str] | None:
    """Which of `names` are read as `.name` (not called) in the repository's code files; None when its files are
    not where the graph says they were ingested from. A substring test first, the pattern only where it may
    match, and it stops once every name is seen: a big repository costs one read of its files at most."""
    root = _repo_root(store, repo)
    if root is None:
        return None
    from kg.source_files import read_source

    pending = set(names)
    for row in store.read("ingest/file_hashes", repo=repo):
        if row["kind"] != "code" or not pending:
            continue
        text = read_source(root, row["path"])
        if text is None:
            continue
        for name in [n for n in pending if "." + n in text]:
            if re.search(rf"\.{re.escape(name)}\b(?!\s*\()", text):
                pending.discard(name)
    return names - pending


def hotspots(store: Store, repo: str | None = None, limit: int | None = 25) -> Answer:
    """The symbols with the most fan-in and fan-out: of `repo`, else of the repository the current folder is in,
    else of every repository."""
    repo = repo or repo_here(store)
    rows, total = fetch(store, "hotspots", limit, repo=repo)
    return Answer(f"hotspots{f' in {repo}' if repo else ''}", ["symbol", "kind", "path", "line", "fan_in",
                  "callers", "fan_out"] + ([] if repo else ["repo"]), rows, total, limit, "symbols")


def find(store: Store, text: str, repo: str | None = None, limit: int | None = 20) -> Answer:
    """Where `text` is defined: exact dotted names first, then fuzzy matches ranked by kg.navigate.names (prefix,
    camel/snake parts, substring, typo, docstring). Full-text syntax (`check*`, `chekout~`) is used as typed."""
    if not text.strip():
        raise InputError("empty name: give part of a symbol's name, e.g. `Session` or `get_netrc`")
    exact = store.read("find_symbol", symbol=text.strip(), repo=repo, limit=ALL if limit is None else limit + 1)
    rows = [{**r, "match": "exact", "score": 1.0} for r in exact]
    seen = {(r["repo"], r["qname"]) for r in exact}
    for r in names.near(store, text.strip(), repo, syntax=True):
        if (r["repo"], r["qname"]) not in seen:
            seen.add((r["repo"], r["qname"]))
            rows.append(r)
    if repo and not rows:
        pick_repo(store, repo)  # an unknown repository is an error, not "none"
    return Answer(f"definitions of {shorten(text)}", ["match", "score", "qname", "kind", "path", "line", "signature"]
                  + ([] if repo else ["repo"]), _cut(rows, limit), len(rows), limit, "matches")


def module_summary(store: Store, module: str, repo: str | None = None, limit: int = 40) -> dict[str, Any]:
    """A module's public interface and its dependencies both ways; a symbol's own module when given a symbol."""
    target = resolve(store, module, repo)
    if not target.is_module:
        owner = [r for r in store.read("find_symbol", symbol=target.path, repo=target.repo, limit=5)
                 if r["kind"] == "module" and r["path"] == target.path]
        if not owner:
            raise InputError(f"no module for {target.path} in the graph")
        target = Target(target.repo, owner[0]["qname"], "module", target.path, 1, owner[0]["end_line"])
    iface, iface_total = fetch(store, "module_interface", limit, repo=target.repo, module=target.qname)
    deps, deps_total = fetch(store, "module_dependencies", limit, repo=target.repo, module=target.qname)
    return {
        "module": target,
        "loc": target.end_line,
        "interface": Answer(f"public interface of {target.qname}", ["symbol", "kind", "line", "signature", "doc",
                            "uses"], iface, iface_total, limit, "symbols", target=target),
        "dependencies": Answer(f"dependencies of {target.qname}", ["direction", "module", "names", "line"], deps,
                               deps_total, limit, "modules", target=target),
    }


def run_query(store: Store, name: str, params: dict[str, Any], limit: int | None = 100) -> Answer:
    """Any named query, read-only, with its parameters checked against what the file uses."""
    from kg.navigate.catalog import describe  # every query file read: only `kg query` needs it

    info = describe(name)
    given = dict(params)
    if "limit" in info.used and "limit" not in given:
        given["limit"] = ALL if limit is None else max(limit, FETCH_CAP)  # counts what `limit` cuts below
    missing = [p for p in info.used if p not in given]
    if missing:
        examples = " ".join(f"--param {p}={_shell(info.examples.get(p, '...'))}" for p in missing)
        raise InputError(f"query {shorten(name)} needs {', '.join(missing)}: e.g. kg query {name} {examples}")
    if {"name", "text"} & set(given):
        raise InputError("parameters named `name` or `text` cannot be passed through kg's store; rename them")
    rows = store.read(name, **given)
    columns = list(rows[0]) if rows else []
    return Answer(f"{name}", columns, _cut(rows, limit), len(rows), limit, "rows")


def run_cypher(store: Store, text: str, params: dict[str, Any] | None = None, limit: int = 50) -> Answer:
    """Typed Cypher, run only if it reads the graph (kg.readonly), stopped at `limit` rows and by a server timeout."""
    if not text.strip():
        raise InputError("empty Cypher")
    rows, more = store.read_untrusted(text, params or {}, limit)
    columns = list(rows[0]) if rows else []
    return Answer("cypher", columns, rows, len(rows) + more, limit, "rows", at_least=more)


def _shell(literal: str) -> str:
    value = literal.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return f"'{value}'" if any(c in value for c in " [{") else value
