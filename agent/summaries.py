"""Module summaries: responsibility, public interface, dependencies, notes; rendered at three levels of detail.

A structural summary is built from the graph alone (the planned description, symbols and signatures, imports,
callers), so it is free, always current and works on any ingested repo; an LLM summary (`--summaries llm`) is
made once when the agent writes a file and stored on the Module. Rendering levels are how a context that is over
budget degrades: `full` → `oneline` → `names`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

Level = Literal["full", "oneline", "names"]
LEVELS: tuple[Level, ...] = ("full", "oneline", "names")


@dataclass
class Summary:
    path: str
    responsibility: str
    interface: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    notes: str = ""
    kind: str = "structural"

    def render(self, level: Level) -> str:
        if level == "names":
            return f"- `{self.path}`"
        if level == "oneline":
            if self.responsibility.startswith("defines "):  # already the names (a structural summary)
                return f"- `{self.path}`: {self.responsibility}"
            names = ", ".join(_name(sig) for sig in self.interface[:8])
            return f"- `{self.path}`: {self.responsibility}" + (f" — {names}" if names else "")
        lines = [f"### `{self.path}`", f"Responsibility: {self.responsibility}"]
        if self.interface:
            lines.append("Interface:")
            lines.extend(f"  - {sig}" for sig in self.interface)
        if self.dependencies:
            lines.append("Depends on: " + ", ".join(self.dependencies))
        if self.notes:
            lines.append(f"Notes: {self.notes}")
        return "\n".join(lines)

    def to_props(self) -> dict[str, Any]:
        return {"summary": self.responsibility, "summary_interface": self.interface,
                "summary_dependencies": self.dependencies, "summary_notes": self.notes, "summary_kind": self.kind}


def from_card(card: dict[str, Any], description: str = "") -> Summary:
    """The summary of one `agent/context_knowledge` card: the stored LLM summary when there is one, else structural."""
    if card.get("summary_kind") == "llm" and card.get("summary"):
        return Summary(card["path"], card["summary"], list(card.get("interface") or []),
                       list(card.get("dependencies") or []), card.get("notes") or "", "llm")
    return structural(card, description)


def structural(card: dict[str, Any], description: str = "") -> Summary:
    symbols = [s for s in card.get("symbols") or [] if s and s.get("name")]
    interface = []
    for s in symbols:
        sig = (s.get("signature") or s["name"]).strip().rstrip(":")
        if s["kind"] == "method" and s.get("qname"):  # `def QuerySet.filter(self, …)`: whose method it is
            owner = s["qname"].rsplit(".", 2)[-2]
            sig = sig.replace(f"def {s['name']}(", f"def {owner}.{s['name']}(", 1)
        doc = (s.get("doc") or "").strip()
        interface.append(f"{sig} — {doc}" if doc else sig)
    if description:
        responsibility = description
    else:
        kinds: dict[str, list[str]] = {}
        for s in symbols:
            if s["kind"] in ("class", "function"):
                kinds.setdefault(s["kind"], []).append(s["name"])
        parts = [f"{k}es {', '.join(v[:6])}" if k == "class" else f"{k}s {', '.join(v[:6])}" for k, v in kinds.items()]
        responsibility = ("defines " + "; ".join(parts)) if parts else f"module {card.get('qname') or card['path']}"
    callers = card.get("callers") or 0
    notes = f"called or imported {callers} time{'s' if callers != 1 else ''} in the project" if callers else ""
    return Summary(card["path"], responsibility, interface, [d for d in card.get("imports") or [] if d], notes)


SUMMARY_SYSTEM = ("You summarise one source file for another programmer. Answer with JSON only: "
                  '{"responsibility": one sentence, "interface": [public signatures], '
                  '"dependencies": [imported modules], "notes": short caveats}.')


def parse_llm_summary(path: str, text: str) -> Summary | None:
    """The JSON object in a model's answer as a Summary, or None when the model did not give one."""
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not data.get("responsibility"):
        return None
    as_list = lambda v: [str(x) for x in v] if isinstance(v, list) else ([str(v)] if v else [])  # noqa: E731
    return Summary(path, str(data["responsibility"]), as_list(data.get("interface")),
                   as_list(data.get("dependencies")), str(data.get("notes") or ""), "llm")


def _name(signature: str) -> str:
    match = re.search(r"(?:def|class|func|function)\s+([\w.]+)", signature)
    return match.group(1) if match else signature.split("(")[0].split()[-1] if signature.split() else signature
