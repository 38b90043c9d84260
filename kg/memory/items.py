"""Memory items as read back from the graph, with what a reader must know about each: stale, orphaned, conflicting,
unverified. One read (`memory/items`) serves the CLI, MCP, the agent's context, audit and export."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kg.errors import InputError
from kg.memory.targets import ref_path
from kg.store import Store

STATUSES = ("proposed", "confirmed", "rejected", "superseded")
ACTIVE = ("proposed", "confirmed")


@dataclass
class TargetState:
    ref: str
    kind: str
    hash_then: str | None
    hash_now: str | None
    line: int | None = None

    @property
    def stale(self) -> bool:
        return self.hash_then is None or self.hash_then != self.hash_now

    @property
    def path(self) -> str:
        return ref_path(self.ref)

    @property
    def name(self) -> str:
        return self.ref.split("#", 1)[1] if "#" in self.ref else self.ref


@dataclass
class Conflict:
    other: str
    other_status: str
    other_text: str
    kind: str  # duplicate | contradiction | concurrent | llm
    reason: str
    score: float | None
    settled: bool
    flagged_by: bool = True  # this item raised the flag (the newer of the two)

    @property
    def open(self) -> bool:
        return not self.settled and self.other_status in ACTIVE


@dataclass
class MemoryItem:
    type: str  # decision | knowledge
    id: str
    repo: str
    status: str
    confidence: float
    author: str
    source: str
    version: int
    created_at: Any
    updated_at: Any
    about: list[str]
    targets: list[TargetState]
    text: str = ""  # a decision
    rationale: str = ""
    title: str = ""  # knowledge: the unit when finer or wider than its targets ("checkout flow")
    responsibility: str = ""
    pitfalls: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # planned files not written yet (agent runs)
    updated_by: str = ""
    plan: str | None = None
    conflicts: list[Conflict] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def unverified(self, threshold: float) -> bool:
        """Proposed, or less sure than the project's threshold: never shown as settled knowledge."""
        return self.status == "proposed" or self.confidence < threshold

    @property
    def stale(self) -> list[TargetState]:
        return [t for t in self.targets if t.stale]

    @property
    def orphaned(self) -> list[str]:
        """Refs whose target is gone from the graph (deleted or renamed by an ingest)."""
        linked = {t.ref for t in self.targets}
        return [ref for ref in self.about if ref not in linked]

    @property
    def open_conflicts(self) -> list[Conflict]:
        return [c for c in self.conflicts if c.open] if self.active else []

    @property
    def summary(self) -> str:
        return self.text if self.type == "decision" else (self.responsibility or "; ".join(self.pitfalls))

    def flags(self, threshold: float) -> list[str]:
        out = []
        if self.active and self.unverified(threshold):
            out.append("unverified")
        if self.active and self.stale:
            out.append("stale")
        if self.active and self.orphaned:
            out.append("orphaned")
        if self.open_conflicts:
            out.append("conflict")
        return out

    def to_dict(self, threshold: float) -> dict[str, Any]:
        data = {"type": self.type, "id": self.id, "repo": self.repo, "status": self.status,
                "confidence": self.confidence, "author": self.author, "source": self.source, "version": self.version,
                "created_at": str(self.created_at), "updated_at": str(self.updated_at), "about": self.about,
                "flags": self.flags(threshold)}
        if self.type == "decision":
            data.update(text=self.text, rationale=self.rationale)
        else:
            data.update(title=self.title, responsibility=self.responsibility, pitfalls=self.pitfalls)
        data.update(targets=[{"ref": t.ref, "kind": t.kind, "stale": t.stale, "hash_then": t.hash_then,
                              "hash_now": t.hash_now} for t in self.targets],
                    orphaned=self.orphaned, pending=self.pending,
                    conflicts=[{"with": c.other, "kind": c.kind, "reason": c.reason, "open": c.open}
                               for c in self.conflicts],
                    supersedes=self.supersedes, superseded_by=self.superseded_by)
        return data


def from_row(row: dict[str, Any]) -> MemoryItem:
    p = row["props"]
    return MemoryItem(
        type=row["type"], id=p["id"], repo=p.get("repo") or "", status=p.get("status") or "proposed",
        confidence=float(p.get("confidence") if p.get("confidence") is not None else 1.0),
        author=p.get("author") or "", source=p.get("source") or "", version=int(p.get("version") or 1),
        created_at=p.get("created_at"), updated_at=p.get("updated_at"), about=sorted(p.get("about") or []),
        targets=sorted((TargetState(t["ref"], t["kind"], t["hash_then"], t["hash_now"], t.get("line"))
                        for t in row["targets"]), key=lambda t: t.ref),
        text=p.get("text") or "", rationale=p.get("rationale") or "", title=p.get("title") or "",
        responsibility=p.get("responsibility") or "", pitfalls=list(p.get("pitfalls") or []),
        pending=list(p.get("pending") or []), plan=p.get("plan"),
        updated_by=p.get("updated_by") or p.get("author") or "",
        conflicts=sorted((Conflict(c["id"], c["status"] or "", c["text"] or "", c["kind"] or "", c["reason"] or "",
                                   c["score"], bool(c["settled"]), bool(c["flagged_by"])) for c in row["conflicts"]),
                         key=lambda c: c.other),
        supersedes=sorted(row["supersedes"]), superseded_by=sorted(row["superseded_by"]))


def load(store: Store, repo: str, ids: list[str] | None = None, paths: list[str] | None = None,
         statuses: list[str] | None = None, plan: str | None = None) -> list[MemoryItem]:
    rows = store.read("memory/items", repo=repo, ids=ids, paths=paths, statuses=statuses, plan=plan)
    return [from_row(r) for r in rows]


def get(store: Store, item_id: str) -> MemoryItem:
    """One item by id, in whichever repository it is; a one-line InputError when there is none."""
    item_id = (item_id or "").strip()
    rows = store.read("memory/item_repo", ids=[item_id])
    if not rows:
        raise InputError(f"no decision or knowledge with id {item_id!r}: `kg decisions` lists them")
    found = load(store, rows[0]["repo"], ids=[item_id])
    return found[0]


def order(items: list[MemoryItem], threshold: float) -> list[MemoryItem]:
    """Confirmed before proposed, verified before unverified, newest first within each."""
    rank = {"confirmed": 0, "proposed": 1, "superseded": 2, "rejected": 3}
    by_time = sorted(items, key=lambda i: str(i.created_at), reverse=True)
    return sorted(by_time, key=lambda i: (rank.get(i.status, 4), i.unverified(threshold)))


def forget_repo(store: Store, repo: str) -> None:
    """Delete a repository's memory items and their revisions (for throwaway repositories)."""
    store.write("memory/repo_forget", repo=repo)
