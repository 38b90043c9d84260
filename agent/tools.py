"""The agent's tools: their JSON schemas and what executing one call does. One call per turn, always recorded.

Tools answer from the graph where they can (read_file gives the stored summary before any file text), so a turn's
result stays small; write_file is the only tool that changes anything, and it is confined to the workspace and
followed at once by an incremental ingest and a summary of the written file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kg.agent.errors import WorkspaceError
from kg.agent.memory import file_memory
from kg.agent.workspace import Workspace

from kg.errors import KgError
from kg.memory import config as memory_config
from kg.navigate import answers
from kg.navigate.render import compact
from kg.store import Store

MAX_LIMIT = 100  # rows a graph tool shows at most (its result is cut to the turn's tool_result budget anyway)


@dataclass
class ToolResult:
    ok: bool
    text: str
    wrote: str | None = None  # the workspace path a write_file created or replaced


class MalformedCall(ValueError):
    """The model's tool call cannot be executed as given (unknown tool, bad JSON, missing arguments)."""


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}}


_S = {"type": "string"}
_LIMIT = {"type": "number", "description": f"Rows, at most {MAX_LIMIT}."}


def tool_specs(guided_paths: list[str] | None = None) -> list[dict[str, Any]]:
    """The tool schemas sent with every call. `guided_paths` restricts write_file's path to those (for small
    models with grammar-constrained decoding); pass a bounded list so the schema stays the same size."""
    path = {"type": "string", "description": "Path relative to the workspace, e.g. pkg/mod.py"}
    if guided_paths:
        path = {**path, "enum": guided_paths}
    return [
        _fn("write_file", "Create or replace a file in the workspace with its complete content (at most 1 MB; "
            "never under .git/, .kg/ or .agent/, nor .gitattributes, .gitmodules or .envrc).",
            {"path": path, "content": {"type": "string", "description": "The whole file."}}, ["path", "content"]),
        _fn("read_file", "A file's stored summary, or its text (bounded) when it has none.",
            {"path": {**_S, "description": "Path relative to the workspace."}}, ["path"]),
        _fn("search_code", "Find symbols of the project by name or docstring words.",
            {"query": _S, "limit": _LIMIT}, ["query"]),
        _fn("find_callers", "Who calls a function, method or class of the project.",
            {"symbol": {**_S, "description": "Name or qualified name."}, "limit": _LIMIT}, ["symbol"]),
        _fn("impact", "What may break if a symbol or file changes: callers, importers, subclasses.",
            {"target": {**_S, "description": "Symbol name, qualified name or file path."},
             "depth": {"type": "number", "description": "Steps, 1-10 (default 3)."}, "limit": _LIMIT},
            ["target"]),
        _fn("search_references", "Search reference repositories (code to learn from) for examples.",
            {"query": _S}, ["query"]),
        _fn("record_decision", "Record a design decision later files must respect.",
            {"text": {**_S, "description": "The decision."}, "rationale": {**_S, "description": "Why."},
             "paths": {"type": "array", "items": _S, "description": "Files it is about (may be empty)."},
             "confidence": {"type": "number", "description": "0..1"}}, ["text"]),
    ]


TOOL_NAMES = frozenset(t["function"]["name"] for t in tool_specs())
_REQUIRED = {t["function"]["name"]: t["function"]["parameters"]["required"] for t in tool_specs()}
_PROPERTIES = {t["function"]["name"]: t["function"]["parameters"]["properties"] for t in tool_specs()}
_TYPES = {"string": "a string", "number": "a finite number", "array": "a list of strings"}


def parse_arguments(name: str, raw: str | None) -> dict[str, Any]:
    """The call's arguments as a dict with the types the schema names (unknown keys dropped), or MalformedCall
    saying exactly what is wrong."""
    if name not in TOOL_NAMES:
        raise MalformedCall(f"unknown tool {name!r}: use one of {', '.join(sorted(TOOL_NAMES))}")
    try:
        # strict=False: small models put raw newlines and tabs inside JSON strings (file content); the meaning is plain
        args = json.loads(raw or "{}", strict=False)
    except json.JSONDecodeError as e:
        raise MalformedCall(f"arguments of {name} are not valid JSON ({e.msg} at char {e.pos})") from e
    except RecursionError as e:  # Python's parser gives up on nesting about a thousand deep
        raise MalformedCall(f"arguments of {name} nest too deep: give a flat JSON object") from e
    if not isinstance(args, dict):
        raise MalformedCall(f"arguments of {name} must be a JSON object")
    missing = [k for k in _REQUIRED[name] if not isinstance(args.get(k), str) or not args.get(k)]
    if missing:
        raise MalformedCall(f"{name} needs {', '.join(missing)} (a non-empty string)")
    args = {k: v for k, v in args.items() if k in _PROPERTIES[name] and v is not None}
    wrong = [k for k, v in args.items() if not _has_type(v, _PROPERTIES[name][k]["type"])]
    if wrong:
        expected = _PROPERTIES[name][wrong[0]]["type"]
        raise MalformedCall(f"{name}'s {wrong[0]} must be {_TYPES[expected]}, not {type(args[wrong[0]]).__name__}")
    return args


def _has_type(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "number":  # Python's JSON reads NaN and Infinity too
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class Toolbox:
    """Executes tool calls for one run. `after_write(path)` ingests and summarises a written file and says whether
    it counts (a file that does not parse as its language is written but not done: the call fails)."""

    def __init__(self, store: Store, workspace: Workspace, repo: str, record_decision: Callable[..., str],
                 after_write: Callable[[str], tuple[bool, str]], plan_id: str | None = None) -> None:
        self.store = store
        self.workspace = workspace
        self.repo = repo
        self.plan_id = plan_id  # whose INFORMS edges (kg relate) search_references reads first
        self._decide = record_decision
        self._after_write = after_write

    def execute(self, name: str, args: dict[str, Any]) -> ToolResult:
        try:
            return getattr(self, f"_{name}")(**args)
        except WorkspaceError as e:
            return ToolResult(False, f"refused: {e}")
        except KgError as e:  # a query or ingest failure is the step's result, not the run's end
            return ToolResult(False, f"failed: {e}")

    def _write_file(self, path: str, content: str) -> ToolResult:
        rel = self.workspace.write(path, content)
        ok, note = self._after_write(rel)
        return ToolResult(ok, f"wrote {rel} ({len(content.splitlines())} lines). {note}".strip(), wrote=rel)

    def _read_file(self, path: str) -> ToolResult:
        rel, _ = self.workspace.resolve(path)
        rows = self.store.read("agent/module_text_summary", repo=self.repo, path=rel)
        if rows and rows[0]["summary"] and rows[0]["fresh"]:
            r = rows[0]
            lines = [f"Summary of {rel} ({r['kind']}): {r['summary']}"]
            lines += [f"  - {sig}" for sig in r["interface"] or []]
            if r["dependencies"]:
                lines.append("Depends on: " + ", ".join(r["dependencies"]))
            if r["notes"]:
                lines.append(f"Notes: {r['notes']}")
            return ToolResult(True, "\n".join(lines + self._memory(rel)))
        rel, text, cut = self.workspace.read(path)
        return ToolResult(True, "\n".join(self._memory(rel) + [f"{rel}:\n{text}" + ("\n…[cut: file is longer]"
                                                                                     if cut else "")]))

    def _memory(self, rel: str) -> list[str]:
        """Project memory about the file (decisions, knowledge), labelled like in the context."""
        found = file_memory(self.store, self.repo, rel, memory_config.load(self.store.settings.project)
                            .confirm_threshold)
        return ["Project memory about it:", *found] if found else []

    # The graph questions are kg's navigation answers, as `kg find|callers|impact` and MCP give them.
    def _search_code(self, query: str, limit: float = 10) -> ToolResult:
        return ToolResult(True, compact(answers.find(self.store, _plain(query), self.repo, _rows(limit))))

    def _find_callers(self, symbol: str, limit: float = 20) -> ToolResult:
        return ToolResult(True, compact(answers.callers(self.store, symbol, self.repo, 1, limit=_rows(limit))))

    def _impact(self, target: str, depth: float = 3, limit: float = 30) -> ToolResult:
        return ToolResult(True, compact(answers.impact(self.store, [target], self.repo, int(depth),
                                                       limit=_rows(limit))))

    def _search_references(self, query: str) -> ToolResult:
        if not self.store.read("agent/reference_repos"):
            return ToolResult(True, "No reference repositories are in the graph (ingest one with "
                                    "`kg ingest PATH --role reference`), so there is nothing to search.")
        words = _lucene(query).split()
        informed = self.store.read("agent/references_informing", plan=self.plan_id, words=words,
                                   limit=5) if self.plan_id else []
        lines = [f"{r['repo']}:{r['path']} informs {r['planned']} ({r['type']}, {r['confidence']:.2f}): "
                 f"{r['suggestion'] or ''}".rstrip(": ") for r in informed]
        rows = self.store.read("agent/search_references", query=_lucene(query), limit=8)
        lines += [f"{r['repo']}:{r['path']} {r['name'] or ''}: {r['text'] or ''}".strip() for r in rows[:10]]
        if not lines:
            return ToolResult(True, f"no reference material matches {query!r}")
        return ToolResult(True, "\n".join(lines))

    def _record_decision(self, text: str, rationale: str = "", paths: list[str] | None = None,
                         confidence: float | None = None) -> ToolResult:
        clean = [self.workspace.resolve(p)[0] for p in paths or [] if p]
        # checked like any decision (project memory): the text says whether it was stored, proposed or flagged
        return ToolResult(True, self._decide(text=text, rationale=rationale, paths=clean, confidence=confidence))


def _rows(limit: float) -> int:
    return max(1, min(int(limit), MAX_LIMIT))


def _plain(text: str) -> str:
    """A model's search words as plain words: `kg find` reads `*`, `~`, quotes and AND/OR as full-text syntax,
    which a model means as words."""
    words = "".join(c if c.isalnum() or c in "_. " else " " for c in text).split()
    return " ".join(w.lower() if w in ("AND", "OR", "NOT", "TO") else w for w in words[:12])


def _lucene(text: str) -> str:
    """A free-text query safe for the full-text index, words OR-ed: punctuation (Lucene's syntax) dropped and
    words lowercased, so AND, OR, NOT and TO are words, not operators (the index lowercases anyway)."""
    words = "".join(c if c.isalnum() or c in "_ " else " " for c in text.lower()).split()
    return " ".join(words[:12]) or "*"
