"""`kg memory audit`: memory that may no longer be true or that nobody reads, each with the command that settles it.

    stale      the code a decision or knowledge item is about changed since it was recorded (hash differs)
    orphaned   a target is gone from the graph (deleted or renamed; the item still names it)
    unused     N agent runs on the repository since it was written, and no agent context loaded it
    conflict   a flagged duplicate or contradiction that no person has settled

Only active items (proposed, confirmed) are audited: a rejected or superseded one is history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kg.memory import items as items_module
from kg.memory.config import MemoryConfig
from kg.memory.items import MemoryItem
from kg.store import Store

KINDS = ("stale", "orphaned", "unused", "conflict")


@dataclass
class Finding:
    kind: str
    id: str
    type: str
    repo: str
    summary: str
    detail: str
    settle: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def audit(store: Store, config: MemoryConfig, repo: str | None = None) -> list[Finding]:
    repos = [repo] if repo else [r["repo"] for r in store.read("memory/repos")]
    findings: list[Finding] = []
    for name in repos:
        active = items_module.load(store, name, statuses=["proposed", "confirmed"])
        usage = {r["id"]: r for r in store.read("memory/unused", repo=name)}
        for item in active:
            findings += _findings(item, usage.get(item.id), config)
    return sorted(findings, key=lambda f: (KINDS.index(f.kind), f.repo, f.id))


def _findings(item: MemoryItem, usage: dict[str, Any] | None, config: MemoryConfig) -> list[Finding]:
    verb = "decisions" if item.type == "decision" else "memory"
    out = []

    def add(kind: str, detail: str, settle: str) -> None:
        out.append(Finding(kind, item.id, item.type, item.repo, _short(item.summary), detail, settle))

    if item.stale:
        changed = ", ".join(t.name for t in item.stale)
        add("stale", f"changed since recorded: {changed}",
            f"kg {verb} confirm {item.id}   (it still holds; or: kg {verb} reject {item.id}"
            + (f" / kg decisions supersede {item.id} --text '…')" if item.type == "decision" else ")"))
    if item.orphaned:
        gone = ", ".join(ref.split("#", 1)[-1] for ref in item.orphaned)
        add("orphaned", f"gone from the graph: {gone}",
            f"kg {verb} retarget {item.id} --about NEW_NAME   (or: kg {verb} reject {item.id})")
    if usage and usage["runs"] >= config.unused_after_runs and usage["loaded"] == 0:
        add("unused", f"not loaded by any of the {usage['runs']} agent runs since it was written",
            f"kg {verb} reject {item.id}   (no longer matters; or: kg {verb} confirm {item.id} to keep it)")
    for c in item.open_conflicts:
        if c.flagged_by:  # each conflict once, from the side that raised it
            add("conflict", f"{c.kind} of {c.other} ({c.reason}): {_short(c.other_text)!r}",
                f"kg decisions settle {item.id} {c.other}   (both stand; or: kg decisions reject {item.id} / "
                f"kg decisions supersede {c.other} --by {item.id})")
    return out


def _short(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
