"""Small tree-sitter helpers every language's parser uses (and nothing past `parse` ever sees)."""

from __future__ import annotations

from collections.abc import Iterable

from kg.ingest.facts import ParsedFile, Symbol
from tree_sitter import Node

# Walks stop descending below this nesting depth (minified bundles, generated tables): what is deeper is not read.
# A level costs a walker a few Python frames, so this stays within the interpreter's recursion limit for most input;
# a parser still catches RecursionError and keeps what it collected.
MAX_NESTING = 600


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


def symbol(node: Node, qname: str, name: str, kind: str, parent: str, signature: str = "") -> Symbol:
    """The symbol a declaration node defines, spanning the node's lines."""
    return Symbol(qname=qname, name=name, kind=kind,  # type: ignore[arg-type]
                  start_line=line(node), end_line=node.end_point.row + 1, parent=parent, signature=signature)


def parsed_file(lang: str, path: str, module: str, source: bytes, root: Node, symbols: Iterable[Symbol],
                data: object) -> ParsedFile:
    """A file's parse: its symbols and language facts, with the line and recovered-error counts every language
    reports the same way."""
    return ParsedFile(path=path, lang=lang, module=module, loc=count_lines(source), symbols=tuple(symbols),
                      syntax_errors=count_errors(root), data=data)
