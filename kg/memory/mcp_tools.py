"""Project memory as MCP tools, registered by `kg mcp` (kg/navigate/mcp_server.py) on its server.

`decisions` and `memory` read; `record_decision` is the one tool of `kg mcp` that writes, and only through
kg.memory.writes: checked against the decisions already recorded, `proposed` unless the confidence clears the
project's threshold, flagged for a person when it duplicates or contradicts one. Answers are compact text in which
proposed and low-confidence items say [unverified].
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from kg.memory import config as memory_config
from kg.memory import view
from kg.memory.llm_check import checker_for
from kg.memory.targets import author_for
from kg.memory.writes import MemoryWriter
from kg.navigate.mcp_limits import checked_names, checked_texts
from kg.store import Store

TOOL_NAMES = ["record_decision", "decisions", "memory"]


def register(server: MCPServer, graph: Any) -> list[str]:
    """Add the memory tools to `server`; `graph` is the server's kg.navigate.mcp_server.Graph."""
    project = graph.settings.project

    def config() -> memory_config.MemoryConfig:
        return memory_config.load(project)

    @server.tool()
    def record_decision(text: str, about: list[str], why: str = "", confidence: float | None = None,
                        repo: str | None = None) -> str:
        """Record a design decision about modules, symbols or documents (names as for `callers`). It is compared
        with the decisions already recorded about them: a duplicate or contradiction is flagged for a person.
        It lands `proposed` (unverified) unless `confidence` (0..1) clears the project's threshold. Up to 100
        `about` names of up to 1,000 characters each."""
        checked_names("about", about)
        checked_texts(repo=repo)

        def write(s: Store) -> str:
            settings = config()
            writer = MemoryWriter(s, settings, f"mcp ({author_for(project)})", "mcp", checker_for(settings.llm_check))
            outcome = writer.decide(text, about, why, confidence, repo=repo)
            return outcome.message()
        return graph.ask(write)

    @server.tool()
    def decisions(about: str | None = None, status: str = "active", repo: str | None = None) -> str:
        """The decisions about a module, symbol or document (or all), confirmed first; status is active, all,
        proposed, confirmed, rejected or superseded. [unverified], [stale], [orphaned], [conflict] label the
        ones not to take as settled."""
        checked_texts(about=about, status=status, repo=repo)

        def answer(s: Store) -> str:
            target, found = view.select(s, about, status, repo)
            return view.compact_list(target, found, config().confirm_threshold)
        return graph.ask(answer)

    @server.tool()
    def memory(name: str, repo: str | None = None) -> str:
        """What the project knows about a module or symbol: its responsibility and the points people get wrong,
        the decisions about it, and its summary and interface."""
        checked_texts(name=name, repo=repo)

        def answer(s: Store) -> str:
            threshold = config().confirm_threshold
            return view.compact_memory(view.memory_of(s, name, threshold, repo), threshold)
        return graph.ask(answer)

    return TOOL_NAMES
