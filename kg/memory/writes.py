"""Checked, versioned writes to project memory. Every way in (CLI, agent, MCP, import) comes through here.

Never blind: a new decision is compared with the active decisions about the same targets (kg.memory.similarity,
plus kg.memory.llm_check when configured); a duplicate or a contradiction is stored `proposed` with a
CONFLICTS_WITH flag for a person to settle, never silently beside the other. The exact same text again is not
stored twice.

Never lost: writes carry the version they read. A new decision carries each target's memory version, a change
carries the item's version; the query compares them under the node's write lock. When someone else wrote first,
the writer reads again and merges field by field against what it had read (a field only it changed is applied,
pitfalls lists are merged item by item); when both changed the same field differently, the write becomes a
conflict: a MemoryConflict error, or for an edited decision text a new `proposed` decision flagged `concurrent`.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from kg.errors import InputError, KgError
from kg.memory import items as items_module
from kg.memory import similarity
from kg.memory.config import MemoryConfig
from kg.memory.items import ACTIVE, STATUSES, MemoryItem
from kg.memory.targets import MemoryTarget, resolve_targets
from kg.store import Store

ATTEMPTS = 40  # a write that keeps losing the race reads and merges again this often before giving up
SOURCES = ("cli", "agent", "import", "mcp")
MAX_TEXT = 2000
_AGENT_DEFAULT_CONFIDENCE = 0.7


class MemoryConflict(KgError):
    """A write that met a newer version changing the same field differently; nothing was written."""


@dataclass
class Outcome:
    id: str
    status: str
    action: str  # created | exists | updated | unchanged | superseded | settled
    conflicts: list[dict[str, Any]] = field(default_factory=list)  # {id, kind, reason}
    merged: bool = False  # the write met a newer version and was merged into it
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def message(self) -> str:
        head = {"created": f"recorded {self.id} ({self.status})",
                "exists": f"already recorded as {self.id} ({self.status})",
                "updated": f"{self.id} updated ({self.status})", "unchanged": f"{self.id} unchanged",
                "superseded": f"{self.id} superseded", "settled": f"conflict settled for {self.id}"}[self.action]
        lines = [head + (" (merged with a change made meanwhile)" if self.merged else "")]
        lines += [f"  flagged: {c['kind']} of {c['id']}: {c['reason']}" for c in self.conflicts]
        if self.conflicts:
            lines.append(f"  a person settles it: `kg decisions settle {self.id} {self.conflicts[0]['id']}` (both "
                         f"stand), `kg decisions reject {self.id}` or `kg decisions supersede "
                         f"{self.conflicts[0]['id']} --by {self.id}`")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)


def clean_text(value: str | None, what: str, required: bool = True) -> str:
    """One line of text: surrounding and repeated whitespace dropped (a memory file keeps one item per line)."""
    text = " ".join((value or "").split())
    if required and not text:
        raise InputError(f"empty {what}: say it in words")
    if len(text) > MAX_TEXT:
        raise InputError(f"the {what} is {len(text)} characters: keep it under {MAX_TEXT} (put details in --why)")
    return text


def check_confidence(value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
        raise InputError(f"confidence must be a number from 0.0 to 1.0, not {value!r}")
    return float(value)


def check_status(value: str) -> str:
    if value not in STATUSES:
        raise InputError(f"status {value!r} is not one of {', '.join(STATUSES)}")
    return value


def knowledge_id(repo: str, refs: list[str], title: str) -> str:
    """Derived from what the knowledge is about, so every writer of the same item meets on one node."""
    digest = hashlib.blake2b("\n".join([repo, title, *sorted(refs)]).encode(), digest_size=6).hexdigest()
    return f"kn-{digest}"


class MemoryWriter:
    """Writes on behalf of one author from one source (cli, agent, import, mcp)."""

    def __init__(self, store: Store, config: MemoryConfig, author: str, source: str, checker: Any = None) -> None:
        if source not in SOURCES:
            raise InputError(f"source {source!r} is not one of {', '.join(SOURCES)}")
        self.store = store
        self.config = config
        self.author = author
        self.source = source
        self.checker = checker  # an llm_check.LLMCheck, or None

    # ── decisions ───────────────────────────────────────────────────────────────────────────────────────────────

    def decide(self, text: str, about: list[str] | None = None, rationale: str = "", confidence: float | None = None,
               propose: bool = False, repo: str | None = None, targets: list[MemoryTarget] | None = None,
               pending: list[str] | None = None, plan: str | None = None, run: str | None = None,
               status: str | None = None, also_conflicts: list[dict[str, Any]] | None = None,
               replacing: str | None = None) -> Outcome:
        """Record a decision about `about` (names) or `targets` (resolved), checked against what is recorded
        (except `replacing`, the decision it is about to supersede)."""
        text = clean_text(text, "decision text")
        rationale = clean_text(rationale, "rationale", required=False)
        confidence = check_confidence(confidence)
        if confidence is None:
            confidence = _AGENT_DEFAULT_CONFIDENCE if self.source in ("agent", "mcp") else 1.0
        pending = sorted(set(pending or []))
        if targets is None:
            targets = resolve_targets(self.store, list(about or []), repo) if about else []
        if not targets and not pending and not plan:
            raise InputError("a decision must be about something: give --about NAME (a module, symbol or document)")
        repo = targets[0].repo if targets else repo
        if not repo:
            raise InputError("no repository for this decision: pass --repo")
        for attempt in range(ATTEMPTS):
            state = self.store.read("memory/decide_state", rows=[t.row() for t in targets], plan=plan,
                                    pending=pending)[0]
            versions = {row["key"]: row["version"] for row in state["targets"]}
            gone = [t.name for t in targets if t.key not in versions]
            if gone:
                raise InputError(f"{gone[0]} is no longer in the graph (re-ingested meanwhile?): check the name")
            actives = sorted((d for d in state["decisions"] if d["id"] != replacing), key=lambda d: d["id"])
            same = next((d for d in actives if similarity.normalized(d["text"]) == similarity.normalized(text)), None)
            if same is not None:
                return Outcome(same["id"], same["status"], "exists")
            conflicts: list[dict[str, Any]] = []
            for c in list(also_conflicts or []) + self._conflicts(text, actives):  # one flag per decision
                if all(c["id"] != seen["id"] for seen in conflicts):
                    conflicts.append(c)
            final = self._status(status, confidence, propose, conflicts)
            decision = {"id": f"dec-{secrets.token_hex(6)}", "repo": repo, "text": text, "rationale": rationale,
                        "status": final, "confidence": confidence, "author": self.author, "source": self.source,
                        "about": sorted(t.ref for t in targets), "pending": pending, "plan": plan, "run": run}
            rows = self.store.write_read("memory/decision_create", decision=decision, conflicts=conflicts,
                                         targets=[{**t.row(), "version": versions[t.key]} for t in targets],
                                         plan=plan, pending=pending)
            if rows:
                return Outcome(rows[0]["id"], rows[0]["status"], "created", conflicts, merged=attempt > 0)
            _backoff(attempt)
        raise KgError(f"the memory of {', '.join(t.name for t in targets) or 'this plan'} kept changing while "
                      f"recording ({ATTEMPTS} tries): try again")

    def _conflicts(self, text: str, actives: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = []
        for d in actives:
            verdict = similarity.compare(text, d["text"], self.config.duplicate_similarity,
                                         self.config.contradiction_similarity)
            if verdict.kind != "none":
                found.append({"id": d["id"], "kind": verdict.kind, "reason": verdict.reason, "score": verdict.score})
        if self.checker is not None:
            flagged = {c["id"] for c in found}
            for d in actives:
                if d["id"] not in flagged and (opinion := self.checker.compare(text, d["text"])) is not None:
                    found.append({"id": d["id"], "kind": opinion[0], "reason": f"LLM: {opinion[1]}", "score": None})
        return found

    def _status(self, status: str | None, confidence: float, propose: bool, conflicts: list) -> str:
        if conflicts or propose:
            return "proposed"
        if status is not None:
            return check_status(status)
        if self.source in ("agent", "mcp"):
            return "confirmed" if confidence >= self.config.confirm_threshold else "proposed"
        return "confirmed"

    def set_status(self, item_id: str, status: str) -> Outcome:
        """confirm (also: the item holds for the code as it is now; its targets' hashes are recorded again and
        targets that are back in the graph re-attached) or reject."""
        check_status(status)
        item = items_module.get(self.store, item_id)
        if status == "superseded":
            raise InputError(f"supersede with `kg decisions supersede {item.id} --by NEW_ID` (or --text)")
        return self.update(item, {"status": status}, refresh=status == "confirmed")

    def supersede(self, old_id: str, new_id: str | None = None, text: str | None = None,
                  rationale: str = "") -> Outcome:
        """`old` is replaced by the decision `new_id`, or by a new decision saying `text` about the same targets."""
        old = items_module.get(self.store, old_id)
        if old.type != "decision":
            raise InputError(f"{old.id} is knowledge, not a decision: update it with `kg memory set`")
        if bool(new_id) == bool(text):
            raise InputError("say what supersedes it: --by DECISION_ID or --text 'the new decision'")
        if not old.active:
            raise InputError(f"{old.id} is already {old.status}")
        if text:
            targets = resolve_targets(self.store, [t.name for t in old.targets], old.repo) if old.targets else []
            created = self.decide(text, rationale=rationale, targets=targets, repo=old.repo, plan=old.plan,
                                  pending=old.pending, replacing=old.id)
            new_id = created.id
        new = items_module.get(self.store, new_id or "")
        if new.id == old.id:
            raise InputError("a decision cannot supersede itself")
        for attempt in range(ATTEMPTS):
            rows = self.store.write_read("memory/supersede", old=old.id, new=new.id, version=old.version,
                                         author=self.author)
            if rows:
                return Outcome(old.id, "superseded", "superseded", merged=attempt > 0, note=f"by {new.id}")
            old = items_module.get(self.store, old.id)
            if not old.active:
                raise MemoryConflict(f"{old.id} became {old.status} meanwhile (version {old.version}): nothing "
                                     f"changed; look with `kg decisions show {old.id}`")
            _backoff(attempt)
        raise KgError(f"{old.id} kept changing while superseding it ({ATTEMPTS} tries): try again")

    def settle(self, a: str, b: str) -> Outcome:
        """Both flagged decisions stand: the conflict between them was a false alarm."""
        first, second = items_module.get(self.store, a), items_module.get(self.store, b)
        rows = self.store.write_read("memory/conflict_settle", a=first.id, b=second.id, author=self.author)
        if not rows or not rows[0]["settled"]:
            raise InputError(f"no conflict is flagged between {first.id} and {second.id}: `kg decisions` lists them")
        return Outcome(first.id, first.status, "settled", note=f"{first.id} and {second.id} both stand")

    def retarget(self, item_id: str, about: list[str]) -> Outcome:
        """Point an item at other targets (its old ones are gone or were wrong); their hashes are recorded now."""
        item = items_module.get(self.store, item_id)
        targets = resolve_targets(self.store, about, item.repo)
        if not targets:
            raise InputError("retarget needs --about NAME")
        outcome = self.update(item, {"about": sorted(t.ref for t in targets)}, targets=targets)
        outcome.note = f"now about {', '.join(t.name for t in targets)} (hashes recorded now)"
        return outcome

    # ── knowledge ───────────────────────────────────────────────────────────────────────────────────────────────

    def put_knowledge(self, about: list[str], responsibility: str | None = None, add_pitfalls: list[str] = (),
                      drop_pitfalls: list[str] = (), title: str = "", confidence: float | None = None,
                      propose: bool = False, repo: str | None = None, only_if_new: bool = False) -> Outcome:
        """Create or update the knowledge about `about` (+ `title` for a unit finer or wider than a file)."""
        responsibility = None if responsibility is None else clean_text(responsibility, "responsibility")
        add = [clean_text(p, "pitfall") for p in add_pitfalls]
        drop = [clean_text(p, "pitfall") for p in drop_pitfalls]
        title = clean_text(title, "title", required=False)
        confidence = check_confidence(confidence)
        if confidence is None:
            confidence = _AGENT_DEFAULT_CONFIDENCE if self.source in ("agent", "mcp") else 1.0
        if responsibility is None and not add and not drop:
            raise InputError("nothing to record: give --responsibility TEXT and/or --pitfall TEXT")
        targets = resolve_targets(self.store, about, repo)
        if not targets:
            raise InputError("knowledge must be about something: give NAME (a module, symbol or document)")
        refs = sorted(t.ref for t in targets)
        item_id = knowledge_id(targets[0].repo, refs, title)
        status = self._status(None, confidence, propose, [])
        props = {"id": item_id, "repo": targets[0].repo, "title": title, "responsibility": responsibility or "",
                 "pitfalls": [p for p in dict.fromkeys(add) if p not in drop], "status": status,
                 "confidence": confidence, "author": self.author, "source": self.source, "about": refs}
        created = self.store.write_read("memory/knowledge_create", knowledge=props,
                                        targets=[t.row() for t in targets])
        if created and created[0]["created"]:
            return Outcome(item_id, status, "created")
        if only_if_new:
            return Outcome(item_id, status, "exists")
        item = items_module.get(self.store, item_id)
        pitfalls = [p for p in item.pitfalls if p not in drop] + [p for p in add if p not in item.pitfalls]
        changes: dict[str, Any] = {"pitfalls": pitfalls, "status": status, "confidence": confidence}
        if responsibility is not None:
            changes["responsibility"] = responsibility
        return self.update(item, changes, refresh=self.source == "cli" and not propose)

    # ── the versioned update every change goes through ──────────────────────────────────────────────────────────

    def update(self, item: MemoryItem, changes: dict[str, Any], base: dict[str, Any] | None = None,
               refresh: bool = False, targets: list[MemoryTarget] | None = None) -> Outcome:
        """Apply `changes` to `item` as read (or to `base`, the values the writer saw at `item.version`)."""
        base = dict(base) if base is not None else values(item)
        read_version = item.version
        current = item
        for attempt in range(ATTEMPTS):
            merged, clashes = merge3(base, values(current), changes)
            if clashes:
                name, theirs, ours = clashes[0]
                raise MemoryConflict(
                    f"{current.id} changed meanwhile (version {current.version}, by "
                    f"{current_author(current)}): its {name} is now {theirs!r}, you wanted {ours!r}. Nothing changed: "
                    f"read it again (`kg decisions show {current.id}`) and decide")
            if not merged and not refresh and targets is None:
                return Outcome(current.id, current.status, "unchanged", merged=current.version != read_version)
            rows = self.store.write_read("memory/item_update", id=current.id, version=current.version,
                                         changes=merged, author=self.author, refresh=refresh,
                                         targets=None if targets is None else [t.row() for t in targets])
            if rows:
                status = merged.get("status", current.status)
                return Outcome(current.id, status, "updated", merged=current.version != read_version,
                               note=_open_conflicts_note(current, status))
            current = items_module.get(self.store, current.id)
            _backoff(attempt)
        raise KgError(f"{item.id} kept changing while updating it ({ATTEMPTS} tries): try again")

    def base_at(self, item: MemoryItem, version: int) -> dict[str, Any] | None:
        """The item's values at `version` (from its revisions), or None when that version is unknown."""
        if version == item.version:
            return values(item)
        rows = self.store.read("memory/revision_get", id=item.id, version=version)
        return _values_of(rows[0]["props"]) if rows else None


FIELDS = ("text", "rationale", "status", "confidence", "title", "responsibility", "pitfalls", "about")


def values(item: MemoryItem) -> dict[str, Any]:
    return {"text": item.text, "rationale": item.rationale, "status": item.status, "confidence": item.confidence,
            "title": item.title, "responsibility": item.responsibility, "pitfalls": list(item.pitfalls),
            "about": list(item.about)}


def _values_of(props: dict[str, Any]) -> dict[str, Any]:
    return {"text": props.get("text") or "", "rationale": props.get("rationale") or "",
            "status": props.get("status") or "proposed", "confidence": float(props.get("confidence") or 0.0),
            "title": props.get("title") or "", "responsibility": props.get("responsibility") or "",
            "pitfalls": list(props.get("pitfalls") or []), "about": list(props.get("about") or [])}


def merge3(base: dict[str, Any], current: dict[str, Any],
           changes: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Any, Any]]]:
    """What to write so that `changes` (made against `base`) land on `current`, and the fields that clash."""
    merged: dict[str, Any] = {}
    clashes = []
    for name, ours in changes.items():
        theirs, was = current.get(name), base.get(name)
        if ours == theirs:
            continue
        if name == "pitfalls":  # a list people add to: merge item by item
            added = [p for p in ours if p not in (was or [])]
            removed = {p for p in (was or []) if p not in ours}
            result = [p for p in theirs or [] if p not in removed] + [p for p in added if p not in (theirs or [])]
            if result != theirs:
                merged[name] = result
        elif was == theirs:
            merged[name] = ours
        else:
            clashes.append((name, theirs, ours))
    return merged, clashes


def current_author(item: MemoryItem) -> str:
    return item.updated_by or "someone"


def _open_conflicts_note(item: MemoryItem, status: str) -> str:
    if status not in ACTIVE or not item.open_conflicts:
        return ""
    others = ", ".join(c.other for c in item.open_conflicts)
    return f"still flagged against {others}: settle with `kg decisions settle`, reject or supersede one"


def _backoff(attempt: int) -> None:
    time.sleep(random.uniform(0.005, 0.02) * min(attempt + 1, 8))
