"""Methods a base class may call by a name computed at run time: the dispatch the graph cannot see.

`handler = getattr(self, request.method.lower())` in a view base class (django's `View.dispatch`, flask's
`MethodView`) runs a subclass's `get` or `post` that nothing calls by name. Ingest records every `getattr` as a
`dynamic` call; whether it looks up an attribute of the object itself with a computed name is read from the call's
line: `getattr(self, "name")` resolves like `self.name` and `getattr(other, name)` reaches other objects' methods.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.source_files import read_source

if TYPE_CHECKING:
    from kg.store import Store

# `handler = getattr(self, ...)`: bound to a name the method may call
_BOUND = re.compile(r"""^\s*(\w+)\s*=\s*getattr\(""")


def dispatched_by_name(store: Store, repo: str, root: Path, methods: list[str]) -> dict[str, str]:
    """For each of `methods` (qualified names) that its own class or a base class may call by a computed name, where
    (`path:line`, the first such site). A lookup counts when its result is called: at once, or bound to a name the
    rest of the method calls or hands on (`handler(request)`, `ensure_sync(meth)`); `getattr(self, meta.pk.attname)`
    reads a value."""
    if not methods:
        return {}
    sites = store.read("name_dispatch_sites", repo=repo, methods=methods)
    texts: dict[str, list[str] | None] = {}
    verdicts: dict[tuple[str, int], bool] = {}
    found: dict[str, str] = {}
    for site in sorted(sites, key=lambda s: (s["path"], s["line"])):
        if site["qname"] in found:
            continue
        key = (site["path"], site["line"])
        if key not in verdicts:
            if site["path"] not in texts:
                text = read_source(root, site["path"])
                texts[site["path"]] = text.splitlines() if text is not None else None
            verdicts[key] = _calls_what_it_looks_up(texts[site["path"]] or [], site["line"], site["end_line"])
        if verdicts[key]:
            found[site["qname"]] = f"{site['path']}:{site['line']}"
    return found


def _calls_what_it_looks_up(lines: list[str], line: int, end_line: int | None) -> bool:
    """Whether the `getattr` call at line `line` (1-based; its arguments may run over the next lines) looks up an
    attribute of self by a computed name, and the method (up to `end_line`) calls what it found."""
    if not 0 < line <= len(lines) or (start := lines[line - 1].find("getattr(")) < 0:
        return False
    call, after = _one_call(" ".join(lines[line - 1:line + 4])[start:])
    if not _looks_up_self_by_computed_name(call):
        return False
    if after.lstrip().startswith("("):  # `getattr(self, piece)()`
        return True
    bound = _BOUND.match(lines[line - 1])
    if not bound:
        return False
    # `handler(request)`, or wrapped first and called: `ensure_sync(meth)(**kwargs)`
    use = re.compile(rf"\b{bound[1]}\s*\(|\(\s*{bound[1]}\s*\)\s*\(")
    return any(use.search(rest) for rest in lines[line:end_line or line])


def _looks_up_self_by_computed_name(call: str) -> bool:
    """`getattr(self, "clean_%s" % name)` or `getattr(cls, piece)`; not `getattr(self, "name")` (a plain literal
    resolves like `self.name`) nor `getattr(other, name)`."""
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return False
    return (isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Name)
            and node.args[0].id in ("self", "cls") and not isinstance(node.args[1], ast.Constant))


def _one_call(text: str) -> tuple[str, str]:
    """`text` (starting at a call) cut after the call's closing bracket: (the call, what follows)."""
    depth = 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == ")" and depth == 0:
            return text[:i + 1], text[i + 1:]
    return text, ""


def mark_dispatched(store: Store, repo: str, root: Path | None, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dead-code rows of methods a class looks up on itself by a computed name become `maybe`, saying where."""
    if root is None:
        return rows
    methods = [r["symbol"] for r in rows if r["kind"] == "method" and r["status"] != "maybe"]
    where = dispatched_by_name(store, repo, root, methods)
    for row in rows:
        if site := where.get(row["symbol"]):
            row.update(status="maybe", confidence=0.3,
                       why=f"its class looks methods up by a computed name (getattr(self, …) at {site})")
    return rows
