"""A task's context under a token budget: the ranked files, then the sections its task type loads, in order.

    files           the ranked files, each with the signals that found it and why
    map             the folders of those files and what each file defines, one line a file
    summaries       each file's interface: classes, functions and methods with signatures and first doc lines
    code            the source of the symbols that matched, read from the repository's files
    call_graph      callers and callees of those symbols (`call_depth` hops)
    impact          what reaches those symbols: callers, importers, subclasses, transitively
    tests           the tests that reach them
    docs            document chunks (README, docs) matching the task
    decisions       the active decisions about those files
    recent_changes  the last commits that touched those files (git)
    memory          what agents stored about those modules (summaries, notes) and the decisions about them

When the whole does not fit the budget, the degradation steps of `.agent/orchestrator.yaml` are taken one by one
(full code → summaries only; the whole call graph → direct neighbours only; summaries → one line; fewer files;
finally a cut), and the steps taken are part of the answer. The budget is also what is left of the task's and
the day's budgets (`.agent/budget.yaml`); each context is recorded so those can be counted.
"""

from __future__ import annotations

import hashlib
import threading
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kg.errors import InputError, KgError
from kg.git import git
from kg.retrieve.config import TASK_TYPES, Budget, Orchestrator, Strategy
from kg.retrieve.rank import RankedFile, is_test, lucene_query
from kg.retrieve.search import Retrieval, retrieve
from kg.source_files import read_source
from kg.store import Store
from kg.tokens import Tokenizer
from kg.unfinished import unfinished_notes

MAX_CODE_LINES = 60  # lines of one symbol's source; a longer body is cut with a note
CODE_SYMBOLS = 6  # symbols whose source is shown
MIN_ROOM = 200  # tokens a context always gets (the file list), even past its task's or day's budget


@dataclass
class Section:
    name: str
    text: str
    tokens: int


@dataclass
class TaskContext:
    repo: str
    task_type: str
    budget: int
    retrieval: Retrieval
    sections: list[Section] = field(default_factory=list)
    degradation: list[str] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # missing signals, a cut task, …

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sections)

    @property
    def files(self) -> list[RankedFile]:
        return self.retrieval.files

    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections if s.text)

    def to_dict(self, limit: int = 20) -> dict[str, Any]:
        return {"repo": self.repo, "type": self.task_type, "budget": self.budget, "tokens": self.tokens,
                "degradation": self.degradation, "alerts": self.alerts, "notes": self.notes,
                **{k: v for k, v in self.retrieval.to_dict(limit).items() if k != "repo"},
                "sections": [{"name": s.name, "tokens": s.tokens, "text": s.text} for s in self.sections]}


def task_key(text: str) -> str:
    """A task's identity for its budget: the hash of its text (an agent run passes its run id instead)."""
    return "task-" + hashlib.sha1(text.strip().encode()).hexdigest()[:12]


def build(store: Store, repo: str, text: str, task_type: str = "modify", *, budget: int | None = None,
          orchestrator: Orchestrator | None = None, limits: Budget | None = None, tokenizer: Tokenizer | None = None,
          task: str | None = None, record: bool = True, **retrieve_options: Any) -> TaskContext:
    """The context of a task: ranked by kg.retrieve.search, loaded per the task type's strategy, fitted to the
    budget (the smallest of `budget`, the per-call budget, and what the task and the day have left)."""
    if task_type not in TASK_TYPES:
        raise InputError(f"task type {task_type!r} is not one of {', '.join(TASK_TYPES)}")
    require_task(text)
    orchestrator = orchestrator or Orchestrator()
    limits = limits or Budget()
    tok = tokenizer or Tokenizer()
    key = task or task_key(text)
    with ThreadPoolExecutor(2) as pool:  # the budgets left and the ingest's mark are asked while the ranking is made
        left = pool.submit(_room, store, limits, key, budget)
        unfinished = pool.submit(unfinished_notes, store, repo)
        found = retrieve(store, repo, text, **retrieve_options)
        room, alerts = left.result()
    context = TaskContext(repo, task_type, room, found, alerts=alerts,
                          notes=unfinished.result() + ranking_notes(found))
    strategy = orchestrator.strategy(task_type)
    _fit(store, context, strategy, orchestrator, tok)
    if record:
        _record(store, context, key)
    return context


def require_task(text: str | None) -> str:
    """The task text, or a one-line error when there is none."""
    if not text or not text.strip():
        raise InputError("the task is empty: give what to do or the bug report (--task TEXT or --task-file FILE)")
    return text


def ranking_notes(found: Retrieval) -> list[str]:
    """What a reader of the ranking should know: a cut task, signals that did not run, nothing matched."""
    notes = []
    if found.task.cut:
        notes.append("the task text was longer than 20,000 characters: its head and tail were read")
    for signal, why in found.missing.items():
        notes.append(f"{signal} signal not used: {why}")
    if not found.files:
        notes.append("nothing in the repository matched the task (no code names, words or meaning in common): name "
                     "a file, symbol or error message")
    return notes


# ── fitting the budget ──────────────────────────────────────────────────────────────────────────────────────────


@dataclass
class _Level:
    """How much detail each section gets; degradation steps lower it."""

    code: bool = True
    call_depth: int = 1
    summaries: str = "full"  # full | oneline
    files: int = 8


def _fit(store: Store, context: TaskContext, strategy: Strategy, orchestrator: Orchestrator, tok: Tokenizer) -> None:
    level = _Level(call_depth=strategy.call_depth, files=strategy.files)
    loader = _Loader(store, context, strategy.load)
    steps = list(orchestrator.degrade)
    while True:
        sections = [s for s in loader.sections(strategy.load, level) if s is not None]
        context.sections = [Section(name, text, tok.count(text)) for name, text in sections]
        if context.tokens <= context.budget or not steps:
            break
        step = steps.pop(0)
        if not _apply(step, level, strategy):
            continue
        context.degradation.append(step)
        if step == "cut":
            _cut(context, tok)
            break
    if context.tokens > context.budget:  # the steps ran out before it fit: the last sections are cut
        _cut(context, tok)
        if "cut" not in context.degradation:
            context.degradation.append("cut")


def _apply(step: str, level: _Level, strategy: Strategy) -> bool:
    """Lower the level by one step; False when the step changes nothing for this strategy."""
    if step == "code_to_summaries":
        if not level.code or "code" not in strategy.load:
            return False
        level.code = False
        return True
    if step == "call_graph_to_direct":
        if level.call_depth == 1 or not {"call_graph", "impact"} & set(strategy.load):
            return False
        level.call_depth = 1
        return True
    if step == "summaries_to_oneline":
        if level.summaries == "oneline":
            return False
        level.summaries = "oneline"
        return True
    if step == "fewer_files":
        if level.files <= 3:
            return False
        level.files = max(3, level.files // 2)
        return True
    return step == "cut"


def _cut(context: TaskContext, tok: Tokenizer) -> None:
    """Keep sections in order while they fit; cut the first that does not, drop the rest."""
    room = context.budget
    kept = []
    for s in context.sections:
        if room <= 0:
            break
        if s.tokens <= room:
            kept.append(s)
            room -= s.tokens
            continue
        text, _ = tok.cut(s.text, max(room - 4, 0))
        kept.append(Section(s.name, text + " …[cut]", tok.count(text + " …[cut]")))
        break
    context.sections = kept


# ── sections ────────────────────────────────────────────────────────────────────────────────────────────────────


class _Loader:
    """Renders each section from the graph (and the repository's files for code), caching what it read, so the
    degradation loop re-renders without asking twice. The sections are rendered at once (their queries are
    independent round trips), each read made once even when two sections need it."""

    def __init__(self, store: Store, context: TaskContext, load: tuple[str, ...]) -> None:
        self.store = store
        self.c = context
        self.load = load
        self._cache: dict[Any, Future[Any]] = {}
        self._lock = threading.Lock()

    def _once(self, key: Any, make: Any) -> Any:
        with self._lock:
            slot = self._cache.get(key)
            mine = slot is None
            if slot is None:
                slot = self._cache[key] = Future()
        if mine:
            try:
                slot.set_result(make())
            except BaseException as e:
                slot.set_exception(e)
        return slot.result()

    def sections(self, names: tuple[str, ...], level: _Level) -> list[tuple[str, str] | None]:
        with ThreadPoolExecutor(max_workers=len(names) or 1) as pool:
            return list(pool.map(lambda name: self.section(name, level), names))

    def files(self, level: _Level) -> list[RankedFile]:
        return self.c.files[: level.files]

    def source_files(self, level: _Level) -> list[RankedFile]:
        return [f for f in self.files(level) if not is_test(f.path)] or self.files(level)

    def symbols(self, level: _Level) -> list[str]:
        """The dotted names of the symbols that matched, best files first."""
        out: list[str] = []
        for f in self.source_files(level):
            out += [q for q in f.symbols if q not in out][:3]
        return out[:CODE_SYMBOLS]

    def section(self, name: str, level: _Level) -> tuple[str, str] | None:
        if name == "code" and not level.code:  # degraded: the interface instead, unless it is loaded anyway
            if "summaries" in self.load:
                return None
            name = "summaries"
        text = getattr(self, f"_{name}")(level)
        return (name, text) if text else None

    # each section ──────────────────────────────────────────────────────────────────────────────────────────────

    def _files(self, level: _Level) -> str:
        files = self.files(level)
        if not files:
            return ""
        lines = [f"## Files for this task in {self.c.repo} (best first)"]
        for i, f in enumerate(files, start=1):
            why = "; ".join(f"{s}: {', '.join(r[:2])}" if r else s for s, r in
                            ((s, f.reasons.get(s, [])) for s in f.signals))
            lines.append(f"{i}. `{f.path}` — {why}")
        return "\n".join(lines)

    def _cards(self, paths: list[str]) -> dict[str, dict[str, Any]]:
        key = ("cards", tuple(paths))
        rows = self._once(key, lambda: self.store.read("retrieve/file_cards", repo=self.c.repo, paths=paths,
                                                       max_symbols=30))
        return {r["path"]: r for r in rows}

    def _map(self, level: _Level) -> str:
        paths = [f.path for f in self.files(level)]
        cards = self._cards(paths)
        by_folder: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            folder, _, name = p.rpartition("/")
            names = [s["name"] for s in (cards.get(p) or {}).get("symbols", []) if s["kind"] != "method"][:8]
            by_folder[folder or "."].append(f"  {name}: {', '.join(names) or '(no classes or functions)'}")
        return "## Map\n" + "\n".join(f"{folder}/\n" + "\n".join(items) for folder, items in by_folder.items())

    def _summaries(self, level: _Level) -> str:
        paths = [f.path for f in self.source_files(level)]
        cards = self._cards(paths)
        out = ["## What these files define"]
        for p in paths:
            card = cards.get(p)
            if not card:
                continue
            if level.summaries == "oneline":
                names = ", ".join(s["name"] for s in card["symbols"] if s["kind"] != "method")[:300]
                out.append(f"- `{p}` ({card['loc']} lines): {card.get('summary') or names}")
                continue
            out.append(f"### `{p}` ({card['loc']} lines)" + (f"\n{card['summary']}" if card.get("summary") else ""))
            for s in card["symbols"]:
                sig = (s["signature"] or s["name"]).strip().rstrip(":")
                indent = "    " if s["kind"] == "method" else "  "
                doc = f" — {s['doc']}" if s["doc"] else ""
                out.append(f"{indent}{sig}{doc}  [{s['start_line']}-{s['end_line']}]")
        return "\n".join(out) if len(out) > 1 else ""

    def _code(self, level: _Level) -> str:
        qnames = self.symbols(level)
        rows = self._once(("code", tuple(qnames)), lambda: self.store.read(
            "retrieve/symbol_lines", repo=self.c.repo, qnames=qnames)) if qnames else []
        base = self._repo_root()
        out = ["## Code of the symbols that matched"]
        shown_names = {r["qname"] for r in rows}
        for r in rows:
            if any(q.startswith(r["qname"] + ".") for q in shown_names):
                continue  # a class whose matching methods are shown: its whole body would repeat them
            lines = self._lines(base, r["path"], r["line"], r["end_line"]) if base else None
            if lines is None:
                continue
            shown = lines[:MAX_CODE_LINES]
            more = f"\n# … {len(lines) - MAX_CODE_LINES} more lines" if len(lines) > MAX_CODE_LINES else ""
            out.append(f"### {r['qname']} (`{r['path']}`:{r['line']})\n```\n" + "\n".join(shown) + more + "\n```")
        if len(out) > 1:
            return "\n".join(out)
        return "" if "summaries" in self.load else self._summaries(level)  # no source to show: the interface

    def _lines(self, root: Path, path: str, start: int, end: int | None) -> list[str] | None:
        """Lines of a file as it is now, each file read once per context (its matched symbols often share one)."""
        lines = self._once(("source", path), lambda: _read_lines(root, path))
        return None if lines is None else lines[max(start - 1, 0): end or start]

    def _repo_root(self) -> Path | None:
        def read() -> Path | None:
            rows = self.store.read("repos")
            root = next((r["root"] for r in rows if r["repo"] == self.c.repo), None)
            return Path(root) if root else None
        return self._once("repo_root", read)

    def _call_graph(self, level: _Level) -> str:
        qnames = self.symbols(level)
        if not qnames:
            return ""
        rows = self._once(("calls", tuple(qnames), level.call_depth), lambda: self.store.read(
            "retrieve/call_graph", repo=self.c.repo, qnames=qnames, depth=level.call_depth, limit=40))
        if not rows:
            return ""
        out = [f"## Call graph ({'direct neighbours' if level.call_depth == 1 else f'{level.call_depth} hops'})"]
        for r in rows:
            arrow = "←" if r["direction"] == "caller" else "→"
            out.append(f"- {r['symbol']} {arrow} {r['other']} (`{r['path']}`:{r['line']}, hops {r['hops']}, "
                       f"confidence {r['confidence']:.2f})")
        return "\n".join(out)

    def _impact(self, level: _Level) -> str:
        qnames = self.symbols(level)
        if not qnames:
            return ""
        depth = max(level.call_depth, 1)
        rows = self._once(("impact", tuple(qnames), depth), lambda: self.store.read(
            "impact", repo=self.c.repo, qnames=qnames, depth=depth, min_confidence=0.0, evidence="all", limit=40))
        if not rows:
            return ""
        out = [f"## What depends on them (depth ≤ {depth})"]
        out += [f"- {r['dependent']} (`{r['path']}`:{r['line']}, depth {r['depth']}, via {r['via']})" for r in rows]
        return "\n".join(out)

    def _tests(self, level: _Level) -> str:
        qnames = self.symbols(level)
        if not qnames:
            return ""
        rows = self._once(("tests", tuple(qnames)), lambda: self.store.read(
            "retrieve/tests_near", repo=self.c.repo, qnames=qnames, limit=15))
        if not rows:
            return ""
        return "## Tests that call them (`kg tests-for` finds more)\n" + "\n".join(
            f"- {r['test']} (`{r['path']}`:{r['line']}) → {', '.join(r['reaches'])}" for r in rows)

    def _docs(self, level: _Level) -> str:
        query = lucene_query(self.c.retrieval.task.query_words(24))
        if not query:
            return ""
        rows = self._once("docs", lambda: self.store.read("retrieve/fulltext_chunks", repo=self.c.repo,
                                                          query=query, limit=4))
        if not rows:
            return ""
        return "## Documentation\n" + "\n".join(
            f"### `{r['path']}`:{r['line']} {r['heading'] or ''}\n{r['text']}" for r in rows)

    def _decisions(self, level: _Level) -> str:
        paths = [f.path for f in self.files(level)]
        rows = self._once(("decisions", tuple(paths)), lambda: self.store.read(
            "retrieve/decisions_for", repo=self.c.repo, paths=paths, limit=8))
        if not rows:
            return ""
        return "## Decisions to respect\n" + "\n".join(
            f"- {r['text']}" + (f" — because {r['rationale']}" if r["rationale"] else "") +
            f" (about {', '.join(r['about'])})" for r in rows)

    def _memory(self, level: _Level) -> str:
        paths = [f.path for f in self.source_files(level)]
        cards = self._cards(paths)
        lines = [f"- `{p}`: {c['summary']}" + (f" ({c['notes']})" if c.get("notes") else "")
                 for p, c in cards.items() if c.get("summary")]
        decisions = self._decisions(level)
        if not lines and not decisions:
            return ""
        return "\n".join(x for x in ("## What was learned about these modules" if lines else "", *lines,
                                     decisions) if x)

    def _recent_changes(self, level: _Level) -> str:
        root = self._repo_root()
        paths = [f.path for f in self.source_files(level)]
        if root is None or not paths or not (root / ".git").exists():
            return ""
        try:
            log = self._once(("git", tuple(paths)), lambda: git(
                root, "log", "-n", "8", "--date=short", "--format=%h %ad %s", paths=tuple(paths)))
        except KgError:
            return ""
        return "## Recent changes to these files\n" + log.strip() if log.strip() else ""


def _read_lines(root: Path, path: str) -> list[str] | None:
    """The lines of a file as it is now, read as dead code reads them (kg.source_files): never through a link (a
    file committed as a link to /etc/passwd was shown to the model as code), a FIFO (it hung) or a huge file."""
    text = read_source(root, path)
    return None if text is None else text.splitlines()


# ── budgets ─────────────────────────────────────────────────────────────────────────────────────────────────────


def _room(store: Store, limits: Budget, key: str, asked: int | None) -> tuple[int, list[str]]:
    """The tokens this call may take: the call budget (or `asked`), cut to what the task and the day have left;
    alerts for each budget past its alert share."""
    day = datetime.now(UTC).date().isoformat()
    used = store.read("retrieve/budget_used", task=key, day=day)[0]
    room = min(asked or limits.per_call, limits.per_call)
    alerts = []
    for name, spent, cap in (("task", used["task"], limits.per_task), ("day", used["day"], limits.per_day)):
        left = cap - spent
        if spent >= cap * limits.alert_at:
            alerts.append(f"{name} budget {spent:,}/{cap:,} tokens used ({100 * spent / cap:.0f}%)")
        if left < room:
            room = max(left, 0)
    if room < MIN_ROOM:
        alerts.append(f"under {MIN_ROOM} tokens left in the budget: only the first files are given")
        room = MIN_ROOM
    return room, alerts


def _record(store: Store, context: TaskContext, key: str) -> None:
    now = datetime.now(UTC)
    store.write("retrieve/context_call_put", call={
        "id": f"ctx-{now:%Y%m%d%H%M%S%f}-{hashlib.sha1(key.encode()).hexdigest()[:4]}", "task": key,
        "day": now.date().isoformat(), "at": now.isoformat(), "repo": context.repo, "type": context.task_type,
        "tokens": context.tokens, "budget": context.budget, "degradation": context.degradation,
        "alerts": context.alerts, "files": [f.path for f in context.files[:10]]})
