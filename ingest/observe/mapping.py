"""From traced code objects to the graph's nodes, and a hash of each node's own text.

A code object is found by its file and first line: a function, method or class starts at its first decorator in
both Python's `co_firstlineno` and kg's `start_line`, so (path, line, name) picks the symbol; a lambda or a
comprehension has no node of its own and counts for the innermost symbol around it; a module body for the module.
A name defined twice in one scope (`@overload` stubs before the implementation, a property's setter, a function in
both branches of an `if`) has one node, spanning one of its definitions: the others' code is found by name in the
scope around it, else its calls and coverage would go to the class or module (`test_locate_app → flask.cli`).

A node's own text is its lines minus those of the functions and classes nested in it (blank and comment lines
left out): a method's edit changes the method's own text but not its class's, so `kg observe --changed` can tell
which of the symbols a test ran have changed, not just which files.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.ingest.observe.trace import Code

_DEFINITIONS = frozenset({"function", "method", "class"})


@dataclass(frozen=True, slots=True)
class Node:
    key: str
    qname: str
    kind: str  # module | function | method | class
    name: str
    path: str
    start_line: int
    end_line: int


class FileNodes:
    """The module and definitions of one file, ready for line lookups."""

    def __init__(self, module: Node, symbols: Iterable[Node]) -> None:
        self.module = module
        self.definitions = sorted((s for s in symbols if s.kind in _DEFINITIONS),
                                  key=lambda s: (s.start_line, -s.end_line))
        self._starts = [s.start_line for s in self.definitions]
        self._by_qname = {s.qname: s for s in self.definitions}

    def node_for(self, code: Code) -> Node:
        if code.name == "<module>":
            return self.module
        at = bisect_right(self._starts, code.line)
        exact = [s for s in self.definitions[:at] if s.start_line == code.line and s.name == code.name]
        if exact:
            return exact[-1]
        holders = [s for s in self.definitions[:at] if s.start_line <= code.line <= s.end_line]
        holder = holders[-1] if holders else self.module  # innermost: the last to start among those that hold it
        # Another definition of a name kg has one node for: by its qualname (inside the holder, since before 3.11
        # the tracer's qualname is the bare name), else by its name in the holder.
        named = self._by_qname.get(f"{self.module.qname}.{code.qualname.replace('<locals>.', '')}")
        if named is not None and named.name == code.name and named.qname.startswith(holder.qname + "."):
            return named
        return self._by_qname.get(f"{holder.qname}.{code.name}", holder)

    def own_text_hashes(self, text: str) -> dict[str, str]:
        """Node key → hash of the node's own lines (nested definitions, blank and comment lines left out)."""
        lines = text.splitlines()
        owner = [self.module.key] * (len(lines) + 1)
        for s in self.definitions:  # outer before inner, so the innermost definition owns each line
            for n in range(max(s.start_line, 1), min(s.end_line, len(lines)) + 1):
                owner[n] = s.key
        own: dict[str, list[str]] = {self.module.key: [], **{s.key: [] for s in self.definitions}}
        for n, line in enumerate(lines, 1):
            kept = line.rstrip()
            if kept and not kept.lstrip().startswith("#"):
                own[owner[n]].append(kept)
        return {key: hashlib.blake2b("\n".join(body).encode(), digest_size=8).hexdigest()
                for key, body in own.items()}


def file_nodes(rows: list[dict]) -> dict[str, FileNodes]:
    """Rows of `observe/nodes_in_files` grouped per file."""
    modules: dict[str, Node] = {}
    symbols: dict[str, list[Node]] = {}
    for r in rows:
        node = Node(r["key"], r["qname"], r["kind"], r["name"], r["path"], r["start_line"] or 1,
                    r["end_line"] or r["start_line"] or 1)
        if r["kind"] == "module":
            modules[r["path"]] = node
        else:
            symbols.setdefault(r["path"], []).append(node)
    return {path: FileNodes(module, symbols.get(path, ())) for path, module in modules.items()}


def own_text_hashes(files: dict[str, FileNodes], root: Path) -> dict[str, str]:
    """Own-text hashes of every node of `files`, read from the working tree under `root`."""
    hashes: dict[str, str] = {}
    for path, nodes in files.items():
        try:
            text = (root / path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue  # gone: its nodes have no current text, so they count as changed
        hashes.update(nodes.own_text_hashes(text))
    return hashes
