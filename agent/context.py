"""Context recipes: the prompt of one turn, rebuilt from named Cypher queries into a fixed shape.

    system      who the agent is and the rules (one tool call per turn)
    plan        the goal, done/total, the next file and a bounded window of done and remaining files
    knowledge   summaries of just the modules the next file uses, will be used by, or that those import,
                ranked and cut to a token budget (full → one-line → names only when over budget)
    references  reference-repo material related to the next file, when there is any
    decisions   project memory (agent/memory.py): the memory index, then in full the decisions and module
                knowledge about the modules the next file touches, confirmed first, unverified ones labelled
    tool_result the result of the previous step

Every slot is bounded, and none of them is a log, so the prompt stays the same size whether the plan has 5 files
or 500. The same builder serves the loop and `kg context`, so what a person inspects is exactly what the model gets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kg.agent.errors import RunNotFound
from kg.agent.memory import MemorySlot
from kg.agent.records import FileProgress, Progress, parsed_endings
from kg.agent.summaries import LEVELS, Level, Summary, from_card
from kg.agent.tokens import Tokenizer

from kg.errors import KgError
from kg.retrieve.search import retrieve
from kg.store import Store

SEGMENTS = ("system", "plan", "knowledge", "references", "decisions", "tool_result")
WINDOW = 8  # done / remaining paths listed in the plan slot; the rest are counted, not listed
MAX_CANDIDATES = 12  # modules considered for the knowledge slot
RELATED = 3  # files the task ranking adds for a next file whose plan entry names no `uses`
RELATED_SIGNALS = ("names", "fulltext", "vectors")  # the graph signal needs seeds the knowledge query adds anyway

SYSTEM = """You are kg's coding agent. You implement a plan one file at a time inside a workspace.
You have no memory between turns: every turn you get the plan, the files done and remaining, what the graph knows
about the modules the next file needs, and the result of your previous step. That is all you need.
Rules:
- Make exactly one tool call per turn. Text without a tool call does nothing.
- Write whole files with write_file (complete content, paths relative to the workspace).
- Prefer writing the next file. Use read_file, search_code, find_callers, impact or search_references only when
  the knowledge below is not enough; use record_decision for choices later files must respect.
- The run ends when every planned file exists; saying you are done does not end it."""


@dataclass
class Budget:
    """Token budgets per turn. `turn` caps the whole prompt (tool schemas included); the knowledge slot gets what
    is left of it, up to `knowledge`."""

    turn: int = 8000
    knowledge: int = 3000
    references: int = 600
    decisions: int = 400
    tool_result: int = 1500


@dataclass
class Segment:
    label: str
    text: str
    tokens: int


@dataclass
class Prompt:
    messages: list[dict[str, str]]
    segments: dict[str, Segment]
    next_file: FileProgress | None
    degradation: str = "none"
    knowledge_paths: list[str] = field(default_factory=list)
    memory_loaded: list[str] = field(default_factory=list)  # ids of the memory items shown in full

    @property
    def counted(self) -> int:
        return sum(s.tokens for s in self.segments.values())

    def ledger(self) -> dict[str, int]:
        return {f"seg_{label}": s.tokens for label, s in self.segments.items()}


@dataclass
class State:
    """What the graph says about the run before a turn (agent/context_state): plan, progress, last turn."""

    plan: dict[str, Any]
    progress: Progress
    last_turn: dict[str, Any] | None


class ContextBuilder:
    def __init__(self, store: Store, repo: str, plan_id: str, tokenizer: Tokenizer,
                 tools: list[dict[str, Any]], budget: Budget | None = None) -> None:
        self.store = store
        self.repo = repo
        self.plan_id = plan_id
        self.tok = tokenizer
        self.tools = tools
        self.budget = budget or Budget()
        self._tools_tokens = tokenizer.count(json.dumps(tools))
        self.memory = MemorySlot(store, repo, plan_id, tokenizer)

    def state(self, run_id: str | None) -> State:
        rows = self.store.read("agent/context_state", plan=self.plan_id, repo=self.repo, run=run_id or "",
                               parsed=parsed_endings())
        if not rows:
            raise RunNotFound(f"no plan {self.plan_id!r} in the graph")
        row = rows[0]
        files = tuple(FileProgress(f["path"], f["description"] or "", tuple(f["uses"] or ()), bool(f["done"]))
                      for f in row["files"])
        return State(row["plan"], Progress(files), (row["last"] or [None])[0])

    def build(self, state: State, target: str | None = None, tools: list[dict[str, Any]] | None = None) -> Prompt:
        """The prompt for the next step; `target` overrides the file the plan would do next (`kg context --file`),
        `tools` the schemas sent with it (they count against the turn budget)."""
        progress = state.progress
        nxt = progress.next_file()
        if target is not None:
            nxt = next((f for f in progress.files if f.path == target), FileProgress(target, "", (), False))
        segments: dict[str, Segment] = {}
        put = lambda label, text: segments.__setitem__(label, Segment(label, text, self.tok.count(text)))  # noqa: E731
        put("system", SYSTEM)
        put("plan", self._plan_text(state.plan, progress, nxt))
        graph = self._graph(progress, nxt)
        put("references", self._cut(self._references(graph["references"]), self.budget.references))
        touched = [*graph["scores"], nxt.path] if nxt is not None else []
        memory, loaded = self.memory.render(touched, self.budget.decisions)
        put("decisions", self._cut(memory, self.budget.decisions))
        put("tool_result", self._cut(self._tool_result(state.last_turn), self.budget.tool_result))
        tools_tokens = self._tools_tokens if tools is None else self.tok.count(json.dumps(tools))
        segments["tools"] = Segment("tools", "", tools_tokens)
        fixed = sum(s.tokens for s in segments.values())
        room = max(0, min(self.budget.knowledge, self.budget.turn - fixed))
        knowledge, degradation, paths = self._knowledge(progress, nxt, graph, room)
        put("knowledge", knowledge)
        third = "\n\n".join(segments[k].text for k in ("knowledge", "references", "decisions", "tool_result")
                            if segments[k].text)
        messages = [{"role": "system", "content": segments["system"].text},
                    {"role": "user", "content": segments["plan"].text},
                    {"role": "user", "content": third}]
        ordered = {k: segments[k] for k in (*SEGMENTS, "tools")}
        return Prompt(messages, ordered, nxt, degradation, paths, loaded)

    def _graph(self, progress: Progress, nxt: FileProgress | None) -> dict[str, Any]:
        """Seeds of the next file ranked by how directly it needs them: files it uses (3), done files that use it
        (2); the query adds the modules those import or call (1 + a little per link) and reads every card."""
        empty: dict[str, Any] = {"scores": {}, "cards": [], "references": []}
        if nxt is None:
            return empty
        scores: dict[str, float] = {}
        for i, used in enumerate(nxt.uses):
            scores[used] = 3.0 - i * 0.01
        for f in progress.files:
            if f.done and nxt.path in f.uses:
                scores.setdefault(f.path, 2.0)
        if not nxt.uses:  # the plan names no dependency: ask the ranking what the workspace has for this file
            for path in self._related(nxt):
                scores.setdefault(path, 1.5)
        seeds = list(scores)[:MAX_CANDIDATES] or [nxt.path]
        row = self.store.read("agent/context_knowledge", repo=self.repo, plan=self.plan_id, next=nxt.path,
                              seeds=seeds, max_neighbours=MAX_CANDIDATES, max_symbols=24, max_methods=6,
                              max_references=4)[0]
        for n in row["neighbours"]:
            scores.setdefault(n["path"], 1.0 + min(n["links"], 50) / 100)
        scores.pop(nxt.path, None)
        cards = [c for c in row["cards"] if c["path"] in scores]
        return {"scores": scores, "cards": cards, "references": [r for r in row["references"] if r]}

    def _related(self, nxt: FileProgress) -> list[str]:
        """Existing workspace files the task ranking (kg.retrieve, as `kg context --task`) finds for the next file's
        path and description; none when the workspace is not in the graph yet or nothing matches."""
        try:
            found = retrieve(self.store, self.repo, f"{nxt.path}\n{nxt.description}", signals=RELATED_SIGNALS)
        except KgError:
            return []
        return [f.path for f in found.files if f.path != nxt.path][:RELATED]

    # ── plan ────────────────────────────────────────────────────────────────────────────────────────────────────

    def _plan_text(self, plan: dict[str, Any], progress: Progress, nxt: FileProgress | None) -> str:
        lines = [f"# Plan: {plan.get('title') or 'plan'}"]
        if goal := (plan.get("goal") or "").strip():
            lines.append(f"Goal: {self._cut(goal, 200)}")
        lines.append(f"Progress: {progress.done}/{progress.total} files done.")
        if nxt is not None:
            lines.append(f"Next file: `{nxt.path}`" + (f" — {nxt.description}" if nxt.description else ""))
            if nxt.uses:
                lines.append("It uses: " + ", ".join(f"`{u}`" for u in nxt.uses))
        remaining = [f for f in progress.remaining if nxt is None or f.path != nxt.path]
        done = [f for f in progress.files if f.done]
        if remaining:
            shown = ", ".join(f"`{f.path}`" for f in remaining[:WINDOW])
            more = f" (+{len(remaining) - WINDOW} more)" if len(remaining) > WINDOW else ""
            lines.append(f"Remaining after it ({len(remaining)}): {shown}{more}")
        if done:
            recent = done[-WINDOW:]
            more = f" (+{len(done) - WINDOW} earlier)" if len(done) > WINDOW else ""
            lines.append(f"Done ({len(done)}): " + ", ".join(f"`{f.path}`" for f in recent) + more)
        return "\n".join(lines)

    # ── knowledge ───────────────────────────────────────────────────────────────────────────────────────────────

    def _knowledge(self, progress: Progress, nxt: FileProgress | None, graph: dict[str, Any],
                   room: int) -> tuple[str, str, list[str]]:
        if nxt is None:
            return "", "none", []
        descriptions = {f.path: f.description for f in progress.files}
        scores = graph["scores"]
        cards = {c["path"]: c for c in graph["cards"]}
        ranked = sorted(cards, key=lambda p: (-scores[p], -(cards[p]["callers"] or 0), p))
        summaries = [from_card(cards[p], descriptions.get(p, "")) for p in ranked]
        pending = [p for p in nxt.uses if p not in cards]  # planned but not written yet
        header = f"## What the graph knows for `{nxt.path}`"
        footer = ("Planned but not written yet: " + ", ".join(f"`{p}` — {descriptions.get(p, '')}" for p in pending)
                  if pending else "")
        if not summaries:
            text = "\n".join(x for x in (header, "No existing module is related to it yet.", footer) if x)
            return text, "none", []
        direct = sum(1 for p in ranked if scores[p] >= 2.0)  # files it uses or that use it; the rest is ring two
        for level in LEVELS:
            text = self._render(header, summaries, direct, level, footer)
            if self.tok.count(text) <= room:
                return text, "none" if level == "full" else level, [s.path for s in summaries]
        kept = list(summaries)  # names only still too long: drop the lowest ranked
        while kept and self.tok.count(self._render(header, kept, direct, "names", footer)) > room:
            kept.pop()
        return self._render(header, kept, direct, "names", footer), "names+cut", [s.path for s in kept]

    @staticmethod
    def _render(header: str, summaries: list[Summary], direct: int, level: Level, footer: str) -> str:
        """Direct neighbours at `level`, the second ring one step less detailed (never more than one line each)."""
        ring = LEVELS[min(LEVELS.index(level) + 1, len(LEVELS) - 1)]
        parts = [s.render(level if i < direct else ring) for i, s in enumerate(summaries)]
        body = "\n".join(p if "\n" not in p else f"\n{p}\n" for p in parts).strip()
        if direct < len(summaries) and level == "full":
            body = body.replace(parts[direct], "Also related (imported or called by those):\n" + parts[direct], 1)
        return "\n".join(x for x in (header, body, footer) if x)

    # ── references, previous step ────────────────────────────────────────────────────────────────────────────────

    @staticmethod
    def _references(rows: list[dict[str, Any]]) -> str:
        if not rows:
            return ""
        lines = ["## Reference material"]
        for r in rows:
            lines.append(f"- {r['repo']}:`{r['path']}` ({r['type']}): {r['summary'] or ''}".rstrip(": "))
            for key in ("helpful_aspects", "usage_suggestions"):
                if r.get(key):
                    value = r[key] if isinstance(r[key], str) else "; ".join(map(str, r[key]))
                    lines.append(f"  {key.replace('_', ' ')}: {value}")
        return "\n".join(lines)

    @staticmethod
    def _tool_result(last: dict[str, Any] | None) -> str:
        if not last:
            return "## Previous step\nNone: this is the first turn. Make one tool call."
        status = "ok" if last.get("ok") else "error"
        return (f"## Previous step (turn {last['n']}): {last.get('tool') or 'no tool'} {last.get('args') or ''}"
                f" → {status}\n{last.get('result') or ''}\nMake the next tool call.")

    def _cut(self, text: str, limit: int) -> str:
        cut, was_cut = self.tok.cut(text, limit)
        return cut + " …[cut]" if was_cut else cut
