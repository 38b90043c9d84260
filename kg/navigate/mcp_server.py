"""`kg mcp`: kg's navigation questions as MCP tools over stdio, for coding agents.

Answers are compact text (a header, tab-separated rows, notes) rather than JSON: an agent pays per token, and a
truncation note says what `limit` left out so it can ask again with a larger one. Every tool calls the same
library function as the CLI and runs in a read transaction; `cypher` is read-only because Neo4j refuses writes
there, not because kg inspects the text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from kg.errors import KgError
from kg.graph import open_graph
from kg.navigate import answers
from kg.navigate.changes import changes as diff_changes
from kg.navigate.render import compact
from kg.settings import Settings
from kg.store import Store

INSTRUCTIONS = (
    "kg answers questions about code from a Neo4j graph of modules, symbols, calls, imports and inheritance. "
    "Name symbols by dotted name (full, or a unique suffix such as `Cart.checkout`), a file path, or `path:line`. "
    "Confidence 1.0 means the edge is certain; lower values are name-based or dynamic guesses."
)


class Graph:
    """One store for the server's life, opened on the first tool call (listing tools needs no database)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None

    def ask(self, question: Callable[[Store], str]) -> str:
        try:
            if self._store is None:
                self._store = open_graph(self.settings)
            return question(self._store)
        except KgError as e:
            raise ToolError(str(e)) from e

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def build(settings: Settings) -> tuple[MCPServer, Graph]:
    server = MCPServer("kg", instructions=INSTRUCTIONS)
    graph = Graph(settings)

    @server.tool()
    def find(text: str, repo: str | None = None, limit: int = 20) -> str:
        """Where a name is defined: exact dotted-name matches first, then fuzzy full-text matches."""
        return graph.ask(lambda s: compact(answers.find(s, text, repo, limit)))

    @server.tool()
    def callers(symbol: str, depth: int = 1, repo: str | None = None, limit: int = 30) -> str:
        """Who calls a symbol, directly (depth 1) or transitively (depth up to 10)."""
        return graph.ask(lambda s: compact(answers.callers(s, symbol, repo, depth, 0.0, limit)))

    @server.tool()
    def callees(symbol: str, depth: int = 1, repo: str | None = None, limit: int = 30) -> str:
        """What a symbol calls, directly (depth 1) or transitively (depth up to 10)."""
        return graph.ask(lambda s: compact(answers.callees(s, symbol, repo, depth, 0.0, limit)))

    @server.tool()
    def impact(symbols: list[str], depth: int = 5, repo: str | None = None, limit: int = 40) -> str:
        """What may break if these symbols, modules or files change: callers, importers, subclasses by depth."""
        return graph.ask(lambda s: compact(answers.impact(s, symbols, repo, depth, 0.0, limit)))

    @server.tool()
    def path(source: str, target: str, depth: int = 6, repo: str | None = None, limit: int = 3) -> str:
        """The shortest call paths from one symbol to another."""
        return graph.ask(lambda s: compact(answers.call_path(s, source, target, repo, depth, limit)))

    @server.tool()
    def tests_for(symbols: list[str], depth: int = 8, repo: str | None = None, limit: int = 40) -> str:
        """The tests (pytest node ids) that exercise these symbols."""
        return graph.ask(lambda s: compact(answers.tests_for(s, symbols, repo, depth, limit)))

    @server.tool()
    def changes(path: str | None = None, since: str | None = None, staged: bool = False, repo: str | None = None,
                limit: int = 40) -> str:
        """From `git diff` of an ingested repository: changed symbols, their impact and the tests to run."""
        def answer(s: Store) -> str:
            report = diff_changes(s, Path(path) if path else None, repo, since, staged, limit=limit)
            head = [f"changed in {report.repo}: {len(report.changed)} symbols"]
            head += [f"{r['qname']}\t{r['kind']}\t{r['path']}:{r['lines']}" for r in report.changed[:limit]]
            return "\n\n".join(["\n".join(head), compact(report.impact), compact(report.tests)])
        return graph.ask(answer)

    @server.tool()
    def module_summary(module: str, repo: str | None = None, limit: int = 30) -> str:
        """A module's public interface (signatures, first doc line, uses) and its dependencies both ways."""
        def answer(s: Store) -> str:
            summary = answers.module_summary(s, module, repo, limit)
            target = summary["module"]
            return "\n\n".join([f"module {target.qname} ({target.path}, {summary['loc']} lines)",
                                compact(summary["interface"]), compact(summary["dependencies"])])
        return graph.ask(answer)

    @server.tool()
    def cypher(query: str, params: str = "{}", limit: int = 50) -> str:
        """Run read-only Cypher (params as a JSON object). Nodes: Repo, Module, Symbol (Class|Function|Method|
        Variable; key repo:qname), External; edges: CONTAINS, DEFINES, CALLS/IMPORTS/INHERITS {line, resolution,
        confidence}."""
        try:
            values = json.loads(params or "{}")
        except json.JSONDecodeError as e:
            raise ToolError(f"params is not a JSON object: {e}") from e
        if not isinstance(values, dict):
            raise ToolError("params must be a JSON object")
        return graph.ask(lambda s: compact(answers.run_cypher(s, query, values, limit)))

    _context_tool(server, graph)
    return server, graph


# ── from a task to context (kg.retrieve) ─────────────────────────────────────────────────────────────────────────


def _context_tool(server: MCPServer, graph: Graph) -> None:
    """The `context` tool: the same ranked, budgeted context as `kg context --task` (kg.retrieve.context)."""
    from kg.retrieve.config import TASK_TYPES, load_budget, load_orchestrator
    from kg.retrieve.context import build as build_context
    from kg.retrieve.service import task_repo

    @server.tool()
    def context(task: str, type: str = "modify", budget: int | None = None, repo: str | None = None,
                files_only: bool = False) -> str:
        """From a task or bug report in words (a pasted traceback is fine) to the files and symbols that matter,
        ranked, with why each was chosen and, by task type (read, modify, debug, refactor), their code,
        callers/callees, tests, decisions, fitted to a token budget. files_only: just the ranked paths."""
        if type not in TASK_TYPES:
            raise ToolError(f"type {type!r} is not one of {', '.join(TASK_TYPES)}")

        def answer(s: Store) -> str:
            project = graph.settings.project
            result = build_context(s, task_repo(s, repo), task, type, budget=budget,
                                   orchestrator=load_orchestrator(project), limits=load_budget(project))
            head = [f"note: {n}" for n in result.notes] + [f"budget alert: {a}" for a in result.alerts]
            if files_only:
                return "\n".join(head + [f.path for f in result.files])
            steps = ", ".join(result.degradation) or "none"
            tail = f"({result.tokens:,}/{result.budget:,} tokens; degradation: {steps})"
            return "\n\n".join(x for x in ("\n".join(head), result.text(), tail) if x)
        return graph.ask(answer)


def serve(settings: Settings) -> None:
    server, graph = build(settings)
    try:
        server.run("stdio")
    finally:
        graph.close()


def tool_names() -> list[str]:
    """The tools `kg mcp` offers (for docs and tests)."""
    return ["find", "callers", "callees", "impact", "path", "tests_for", "changes", "module_summary", "cypher",
            "context"]


__all__ = ["build", "serve", "tool_names"]
