"""The agent's side of project memory: what a turn's context shows, and recording what the agent decides.

The context loads memory in two phases. First the index (`memory/index`): one line per file that has memory, with
its recorded responsibility and how many decisions, enough to know what exists. Then, only for the modules the next
file touches (the same seeds and neighbours as the knowledge slot, plus the next file itself), the items in full
(`memory/items`): decisions to respect, confirmed before proposed, and module knowledge; anything proposed or less
sure than `.agent/memory.yaml`'s threshold is labelled [unverified]. Under budget the index lines go first, then the
least settled items. The ids of the items whose text made it into the prompt are returned, so the run records what
it loaded (the audit's "unused").

The agent's decisions go through kg.memory.writes like everyone's: about the files of the workspace that exist,
or pending on planned files not written yet (linked when they are), as `agent:<run id>`, `proposed` unless their
confidence clears the threshold, flagged when they duplicate or contradict a decision already recorded.
"""

from __future__ import annotations

from kg.agent.tokens import Tokenizer

from kg.errors import InputError
from kg.memory import config as memory_config
from kg.memory import items as memory_items
from kg.memory.items import ACTIVE, MemoryItem
from kg.memory.llm_check import checker_for
from kg.memory.targets import MemoryTarget, resolve_target
from kg.memory.writes import MemoryWriter, Outcome
from kg.store import Store

INDEX_LIMIT = 40


class MemorySlot:
    """Renders the memory segment of a turn's prompt under a token budget."""

    def __init__(self, store: Store, repo: str, plan_id: str, tokenizer: Tokenizer) -> None:
        self.store = store
        self.repo = repo
        self.plan_id = plan_id
        self.tok = tokenizer
        self.threshold = memory_config.load(store.settings.project).confirm_threshold

    def render(self, touched: list[str], budget: int) -> tuple[str, list[str]]:
        """(text, ids of the items shown in full) for a turn whose next file touches `touched`."""
        full = memory_items.load(self.store, self.repo, paths=sorted(set(touched)), statuses=list(ACTIVE),
                                 plan=self.plan_id)
        full = memory_items.order(full, self.threshold)
        shown = set(touched)
        index = [r for r in self.store.read("memory/index", repo=self.repo, threshold=self.threshold,
                                            limit=INDEX_LIMIT) if r["path"] not in shown]
        if not full and not index:
            return "", []
        header = f"## Project memory ([unverified] = proposed, or confidence below {self.threshold:.2f})"
        decisions = [i for i in full if i.type == "decision"]
        knowledge = [i for i in full if i.type == "knowledge"]
        index_lines = [f"- `{r['path']}`" + (f": {_first_sentence(r['responsibility'])}" if r["responsibility"] else "")
                       + _counts(r["decisions"], r["unverified"]) for r in index]
        while True:
            text = self._text(header, decisions, knowledge, index_lines)
            if self.tok.count(text) <= budget or not (index_lines or decisions or knowledge):
                break
            if index_lines:
                index_lines.pop()
            else:  # the least settled item goes first: proposed after confirmed, so the last of the longer list
                (decisions if len(decisions) >= len(knowledge) else knowledge).pop()
        return text, [i.id for i in decisions + knowledge]

    def _text(self, header: str, decisions: list[MemoryItem], knowledge: list[MemoryItem],
              index_lines: list[str]) -> str:
        lines = [header]
        if decisions:
            lines.append("Decisions to respect:")
            lines += [_agent_line(i, self.threshold) for i in decisions]
        if knowledge:
            lines.append("What the modules are for and what people get wrong:")
            lines += [_agent_line(i, self.threshold) for i in knowledge]
        if index_lines:
            lines.append("Other files with recorded memory (read_file shows it):")
            lines += index_lines
        return "\n".join(lines) if len(lines) > 1 else ""


def _agent_line(item: MemoryItem, threshold: float) -> str:
    """An item for the model: no ids, authors or dates (tokens it does not need), its flags kept."""
    labels = "".join(f"[{flag}] " for flag in item.flags(threshold))
    about = ", ".join(ref.split("#", 1)[-1] for ref in item.about + item.pending)
    if item.type == "decision":
        why = f" — because {item.rationale}" if item.rationale else ""
        return f"- {labels}{item.text}{why}" + (f" (about {about})" if about else "")
    unit = f"{item.title} ({about})" if item.title else f"`{about}`"
    words = [item.responsibility] if item.responsibility else []
    if item.pitfalls:
        words.append(f"Watch out: {'; '.join(item.pitfalls)}")
    return f"- {labels}{unit}: {' '.join(words)}"


def _counts(decisions: int, unverified: int) -> str:
    if not decisions:
        return ""
    return f" ({decisions} decision{'s' if decisions > 1 else ''}" + (f", {unverified} unverified)" if unverified
                                                                     else ")")


def _first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def file_memory(store: Store, repo: str, path: str, threshold: float) -> list[str]:
    """The active memory about one file, one line each, for read_file."""
    found = memory_items.load(store, repo, paths=[path], statuses=list(ACTIVE))
    return [_agent_line(i, threshold) for i in memory_items.order(found, threshold)]


def record_decision(store: Store, repo: str, plan_id: str, run_id: str, planned: set[str], text: str,
                    rationale: str, paths: list[str], confidence: float | None) -> Outcome:
    """An agent's decision, through the same checks as a person's. `paths`: workspace files it is about."""
    targets: list[MemoryTarget] = []
    pending: list[str] = []
    for path in dict.fromkeys(paths):
        try:
            targets.append(resolve_target(store, path, repo))
        except InputError:
            if path not in planned:
                raise InputError(f"{path} is neither a file of the workspace nor a planned file") from None
            pending.append(path)
    config = memory_config.load(store.settings.project)
    writer = MemoryWriter(store, config, f"agent:{run_id}", "agent", checker_for(config.llm_check))
    return writer.decide(text, rationale=rationale, confidence=confidence, repo=repo, targets=targets,
                         pending=pending, plan=plan_id, run=run_id)


def propose_knowledge(store: Store, repo: str, run_id: str, path: str, responsibility: str, notes: str) -> None:
    """What the agent's LLM summary says a file is for (and its caveats), as proposed knowledge for a person to
    confirm, when nobody has written any for that file yet. Never overwrites what people wrote."""
    config = memory_config.load(store.settings.project)
    writer = MemoryWriter(store, config, f"agent:{run_id}", "agent")
    writer.put_knowledge([path], responsibility, [notes] if notes.strip() else [], confidence=0.5, repo=repo,
                         propose=True, only_if_new=True)


def outcome_text(outcome: Outcome, threshold: float | None = None) -> str:
    """What the model reads back: short, and telling it what to do about a flag."""
    if outcome.action == "exists":
        return f"decision already recorded as {outcome.id} ({outcome.status}); nothing new stored"
    text = f"recorded decision {outcome.id} ({outcome.status})"
    if outcome.conflicts:
        flags = "; ".join(f"{c['kind']} of {c['id']} ({c['reason']})" for c in outcome.conflicts)
        text += f", flagged for a person: {flags}. Follow the confirmed decisions until it is settled."
    elif outcome.status == "proposed" and threshold is not None:
        text += f": below the confidence threshold {threshold:.2f}, a person will confirm it"
    return text


def loaded(store: Store, run_id: str, turn: int, ids: list[str]) -> None:
    if ids:
        store.write("memory/loaded_put", run=run_id, turn=turn, ids=ids)

