"""The argument limits every MCP tool checks before any work: kg's own tools (kg.navigate.mcp_server) and the
project-memory tools (kg.memory.mcp_tools) share them. A breach is a `ToolError` the client gets as its answer."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

from kg.navigate.answers import MAX_DEPTH

MAX_TEXT = 1_000  # a name, path, revision or repository
MAX_SYMBOLS = 100  # entries of a `symbols` list
MAX_LIMIT = 1_000  # rows per answer


def checked_text(name: str, value: str | None, cap: int = MAX_TEXT) -> None:
    if value is not None and len(value) > cap:
        raise ToolError(f"`{name}` is {len(value):,} characters; at most {cap:,} are accepted")


def checked_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ToolError(f"`{name}` must be between {low} and {high:,}, not {value}")


def checked(limit: int, depth: int | None = None, symbols: list[str] | None = None, **texts: str | None) -> None:
    """The limits every tool shares, checked before any work."""
    checked_range("limit", limit, 1, MAX_LIMIT)
    if depth is not None:
        checked_range("depth", depth, 1, MAX_DEPTH)
    if symbols is not None:
        checked_names("symbols", symbols)
    for name, value in texts.items():
        checked_text(name, value)


def checked_names(name: str, values: list[str]) -> None:
    """A list argument of names: 1 to MAX_SYMBOLS entries, each up to MAX_TEXT characters."""
    if not 1 <= len(values) <= MAX_SYMBOLS:
        raise ToolError(f"`{name}` has {len(values):,} entries; give 1 to {MAX_SYMBOLS}")
    for value in values:
        checked_text(name, value)


def checked_texts(**texts: str | None) -> None:
    """Name-like arguments: each up to MAX_TEXT characters."""
    for name, value in texts.items():
        checked_text(name, value)
