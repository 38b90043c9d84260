"""Small tree-sitter helpers every language's parser uses (and nothing past `parse` ever sees)."""

from __future__ import annotations

import time
from collections.abc import Iterable

from kg.ingest.facts import ParsedFile, Symbol
from tree_sitter import Node, Parser, Tree

# Walks stop descending below this nesting depth (minified bundles, generated tables): what is deeper is not read.
# A level costs a walker a few Python frames, so this stays within the interpreter's recursion limit for most input;
# a parser still catches RecursionError and keeps what it collected.
MAX_NESTING = 600

# tree-sitter is quadratic on some input: at each `/*` of an unterminated comment the JavaScript and Go lexers scan
# to the end of the file, so 20,000 lines of `/* ` took 99 s (Go is 4x slower still). A parse therefore gets
# PARSE_SECONDS plus PARSE_SECONDS_PER_BYTE of this thread's CPU time (not wall time: a busy machine must not make
# a normal file give up), then stops and keeps nothing of the file. Normal code parses at 7-10 MB/s (django's
# JavaScript and Python), so 10 µs a byte leaves a margin of about 70x; the largest file the walk takes (2 MB) may
# use 21 s.
PARSE_SECONDS = 1.0
PARSE_SECONDS_PER_BYTE = 1e-5


def text(node: Node | None) -> str:
    """The source text of a node; invalid UTF-8 is replaced, never raised."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def line(node: Node) -> int:
    """1-based line where a node starts."""
    return node.start_point[0] + 1


def parse_within_budget(parser: Parser, source: bytes) -> tuple[Tree, str]:
    """The tree of `source`, and ""; or, when the parse used up its CPU budget (see PARSE_SECONDS), the tree of an
    empty file and a one-line reason saying what to do.

    `Parser.parse` honours a progress callback only when the source comes from a read callback, and a tree parsed
    that way calls back into Python for every `node.text` (4.8x the time of kg's parse of django). So a parse that
    finishes is done again from the bytes, reusing the tree (+10% of tree-sitter's time on normal code; on a file
    full of errors, which tree-sitter does not reuse, the second parse costs what the first did, so at most the
    budget again)."""
    budget = PARSE_SECONDS + PARSE_SECONDS_PER_BYTE * len(source)
    clock = time.thread_time
    deadline = clock() + budget
    try:
        bounded = parser.parse(lambda offset, _: source[offset:offset + 65536],
                               progress_callback=lambda _offset, _errors: clock() > deadline)
    except ValueError:  # what the binding raises when the callback stopped the parse
        parser.reset()  # a stopped parser would resume the stopped parse on its next call
        return parser.parse(b""), (
            f"parsing gave up after {budget:.1f} s of CPU (tree-sitter crawls on input such as an unterminated /* "
            "comment), so nothing of it is in the graph: fix its syntax, or leave it out with --exclude")
    return parser.parse(source, bounded), ""


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
                data: object, gave_up: str = "") -> ParsedFile:
    """A file's parse: its symbols and language facts, with the line and recovered-error counts every language
    reports the same way. `gave_up`: the reason from `parse_within_budget` (the file then counts one error)."""
    return ParsedFile(path=path, lang=lang, module=module, loc=count_lines(source), symbols=tuple(symbols),
                      syntax_errors=count_errors(root) or int(bool(gave_up)), data=data, gave_up=gave_up)
