"""Reading memory the way people and agents ask for it: the items about a name, and everything the graph knows about
a module or symbol (knowledge, decisions, summary). The CLI renders these as tables, MCP and the agent as compact
text in which unverified items say so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kg.errors import InputError
from kg.memory import items as items_module
from kg.memory.items import ACTIVE, STATUSES, MemoryItem
from kg.memory.targets import MemoryTarget, resolve_target
from kg.navigate import answers
from kg.store import Store


def covers(target: MemoryTarget, ref: str) -> bool:
    """Whether an item about `ref` is about `target`: a module covers its symbols, a class its methods."""
    if not target.is_symbol:
        return ref.split("#", 1)[0] == target.path
    return ref == target.ref or ref.startswith(target.ref + ".")


def select(store: Store, about: str | None = None, status: str | None = None, repo: str | None = None,
           kind: str | None = "decision") -> tuple[MemoryTarget | None, list[MemoryItem]]:
    """The items about a name (or every one of the repository), active ones unless `status` says otherwise."""
    if status not in (None, "all", "active") and status not in STATUSES:
        raise InputError(f"status {status!r} is not one of active, all, {', '.join(STATUSES)}")
    statuses = None if status == "all" else list(ACTIVE) if status in (None, "active") else [status]
    target = resolve_target(store, about, repo) if about else None
    repos = [target.repo] if target else [repo] if repo else [r["repo"] for r in store.read("memory/repos")]
    found: list[MemoryItem] = []
    for name in repos:
        found += items_module.load(store, name, paths=[target.path] if target else None, statuses=statuses)
    if target is not None:
        found = [i for i in found if any(covers(target, ref) for ref in i.about + i.pending)]
    if kind:
        found = [i for i in found if i.type == kind]
    return target, found


@dataclass
class MemoryView:
    target: MemoryTarget
    knowledge: list[MemoryItem]
    decisions: list[MemoryItem]  # about the target itself (a module: also about its symbols)
    around: list[MemoryItem]  # a symbol's: decisions about its module as a whole
    summary: str
    interface: list[str] = field(default_factory=list)

    def to_dict(self, threshold: float) -> dict[str, Any]:
        return {"target": {"repo": self.target.repo, "kind": self.target.kind, "name": self.target.name,
                           "path": self.target.path, "ref": self.target.ref},
                "summary": self.summary, "interface": self.interface,
                "knowledge": [k.to_dict(threshold) for k in self.knowledge],
                "decisions": [d.to_dict(threshold) for d in self.decisions],
                "module_decisions": [d.to_dict(threshold) for d in self.around]}


def memory_of(store: Store, name: str, threshold: float, repo: str | None = None) -> MemoryView:
    """What the graph knows about a module or symbol: responsibility and pitfalls, decisions, summary."""
    target = resolve_target(store, name, repo)
    found = items_module.load(store, target.repo, paths=[target.path], statuses=list(ACTIVE))
    mine = [i for i in found if any(covers(target, ref) for ref in i.about + i.pending)]
    around = [i for i in found if i not in mine and i.type == "decision" and target.is_symbol
              and target.path in i.about]
    knowledge = [i for i in mine if i.type == "knowledge"]
    if target.is_symbol:
        knowledge += [i for i in found if i.type == "knowledge" and target.path in i.about and i not in knowledge]
    ordered = lambda xs: items_module.order(xs, threshold)  # noqa: E731
    summary, interface = _summary(store, target)
    return MemoryView(target, ordered(knowledge), ordered([i for i in mine if i.type == "decision"]),
                      ordered(around), summary, interface)


def _summary(store: Store, target: MemoryTarget) -> tuple[str, list[str]]:
    if target.kind == "document":
        return "", []
    if target.is_symbol:
        rows = store.read("memory/symbol_card", key=target.key)
        if not rows:
            return "", []
        r = rows[0]
        doc = (r["doc"] or "").strip().split("\n")[0]
        return (f"{r['signature'] or target.qname} ({target.path}:{r['start_line']}-{r['end_line']})"
                + (f" — {doc}" if doc else "")), []
    stored = store.read("agent/module_text_summary", repo=target.repo, path=target.path)
    text = stored[0]["summary"] if stored and stored[0]["summary"] else ""
    if stored and stored[0]["summary"] and not stored[0]["fresh"]:
        text += " (summary older than the file)"
    module = answers.module_summary(store, target.path, target.repo, limit=12)
    interface = [f"{r['symbol'].rsplit('.', 1)[-1]} ({r['kind']}, l.{r['line']})" for r in module["interface"].rows]
    return text, interface


# ── compact text for MCP and agents ─────────────────────────────────────────────────────────────────────────────


def line(item: MemoryItem, threshold: float, with_id: bool = True) -> str:
    """One item in one line, labelled: [unverified], [stale], [orphaned], [conflict]."""
    labels = "".join(f"[{flag}] " for flag in item.flags(threshold))
    head = f"{item.id} " if with_id else ""
    if item.type == "decision":
        why = f" — because {item.rationale}" if item.rationale else ""
        about = ", ".join(ref.split("#", 1)[-1] for ref in item.about + item.pending)
        return f"- {labels}{head}{item.text}{why} (about {about or 'the plan'}; {item.status}, " \
               f"{item.confidence:.2f}, {item.author})"
    title = f"{item.title}: " if item.title else ""
    pitfalls = "; ".join(item.pitfalls)
    return (f"- {labels}{head}{title}{item.responsibility or '(no responsibility written)'}"
            + (f" Pitfalls: {pitfalls}" if pitfalls else "") + f" ({item.status}, {item.author})")


def compact_list(target: MemoryTarget | None, found: list[MemoryItem], threshold: float) -> str:
    where = f" about {target.name}" if target else ""
    if not found:
        return f"no decisions{where}"
    ordered = items_module.order(found, threshold)
    return "\n".join([f"{len(found)} decisions{where} (confirmed first; [unverified] = proposed or below "
                      f"confidence {threshold:.2f})"] + [line(i, threshold) for i in ordered])


def compact_memory(view: MemoryView, threshold: float) -> str:
    t = view.target
    lines = [f"{t.kind} {t.name} ({t.repo}:{t.path})"]
    if view.summary:
        lines.append(f"summary: {view.summary}")
    if view.interface:
        lines.append("interface: " + ", ".join(view.interface))
    lines.append("knowledge:" if view.knowledge else "knowledge: none recorded")
    lines += [line(k, threshold) for k in view.knowledge]
    lines.append("decisions:" if view.decisions else "decisions: none recorded")
    lines += [line(d, threshold) for d in view.decisions]
    if view.around:
        lines.append("decisions about its module:")
        lines += [line(d, threshold) for d in view.around]
    return "\n".join(lines)
