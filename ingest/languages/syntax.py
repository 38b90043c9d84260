"""Small tree-sitter helpers every language's parser uses (and nothing past `parse` ever sees)."""

from __future__ import annotations

from tree_sitter import Node


def text(node: Node | None) -> str:
    """The source text of a node; invalid UTF-8 is replaced, never raised."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def line(node: Node) -> int:
    """1-based line where a node starts."""
    return node.start_point[0] + 1


def count_errors(root: Node) -> int:
    """ERROR and MISSING nodes tree-sitter recovered from, descending only into subtrees that contain one."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


def count_lines(source: bytes) -> int:
    """Lines of a file, the last one counted even without a trailing newline."""
    return source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
