"""Definitions their own module uses by name without calling them: the facts dead-code needs that the graph lacks.

The graph records calls, imports and inheritance. A function handed to a builtin at class level
(`digest_method = staticmethod(_lazy_sha1)`, `value = property(_get)`), a class whose inherited classmethod is
called through it (`AsyncView.as_view("view")` resolves to `View.as_view`) or a class passed as a value
(`app.register(PassedView)`, `{"x": handler}`) leaves no edge to the definition. A name used this way is used in
the module that defines it (from elsewhere it would be imported, and the import is an edge), so only the
candidates' own files are read, as Python tokens: strings and comments never count.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.source_files import read_source

# A method is named bare only inside its class body; there it counts only as the argument of these.
_WRAPPERS = frozenset({"staticmethod", "classmethod", "property", "cached_property"})
_SKIP = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})


@dataclass(frozen=True)
class Candidate:
    name: str  # the bare name (last part of the qualified name)
    kind: str  # function | method | class
    start: int  # its own lines, where its name does not count
    end: int


def used_by_name(text: str, candidates: Iterable[Candidate]) -> set[Candidate]:
    """The candidates of one Python file that the file's code names outside their own definition: any use of a
    module-level function or class that is not a call kg resolved already (a value, `X.attr`, an argument), and a
    method as an argument of staticmethod/classmethod/property or as `self.name`/`cls.name` not called (handed on as
    a bound method). Empty when the file does not tokenize."""
    by_name: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_name.setdefault(c.name, []).append(c)
    again = _named_again(text, by_name)
    by_name = {name: found for name, found in by_name.items() if name in again}
    if not by_name:
        return set()  # most candidates: named once, where they are defined
    found = _used_in_tree(text, by_name)
    if found is not None:
        return found
    # not today's Python (a py2 file, a template): its tokens still tell
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _SKIP]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return set()
    used: set[Candidate] = set()
    calls: list[str | None] = []  # for each open bracket: the name called with it, if any
    for i, token in enumerate(tokens):
        before = tokens[i - 1] if i else None
        if token.type == tokenize.OP:
            if token.string in "([{":
                called = before.string if token.string == "(" and before and before.type == tokenize.NAME else None
                calls.append(called)
            elif token.string in ")]}" and calls:
                calls.pop()
            continue
        if token.type != tokenize.NAME or token.string not in by_name:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        line = token.start[0]
        if before and before.string == "." and i > 1 and tokens[i - 2].string in _SELF and not (
                after and after.string == "("):
            # `self.index` handed on (`view_func=self.index`, `callbacks.append(self.on_close)`): a bound method
            # used as a value, which no call edge records
            used |= {c for c in by_name[token.string] if c.kind == "method" and not c.start <= line <= c.end}
            continue
        if before and (before.string in ("def", "class", ".") or before.string == "import"):
            continue  # its definition, another object's attribute, or an import (an edge already)
        if calls and after and after.string == "=" and before and before.string in ("(", ","):
            continue  # a keyword argument's name
        for c in by_name[token.string]:
            if c.start <= line <= c.end:
                continue
            if c.kind != "method" or (calls and calls[-1] in _WRAPPERS):
                used.add(c)
    return used


def _used_in_tree(text: str, by_name: dict[str, list[Candidate]]) -> set[Candidate] | None:
    """`used_by_name` read from tree-sitter's syntax tree (parsed in C, ~6× faster than Python's `ast` and ~20× than
    its tokens over django's tests): a bare name outside the candidate's own lines uses a function or class, and a
    method when the innermost brackets around it are a wrapper call's; `self.name` or `cls.name` not called uses a
    method. Definitions, parameters, keyword names, imports and other objects' attributes use nothing. None when the
    file does not parse cleanly."""
    tree = _parser().parse(text.encode("utf-8"))
    if tree.root_node.has_error:
        return None
    used: set[Candidate] = set()
    for node in _identifiers(tree.root_node):
        name = node.text.decode("utf-8", errors="replace")
        found = by_name.get(name)
        if not found:
            continue
        line = node.start_point[0] + 1
        outside = [c for c in found if not c.start <= line <= c.end]
        parent = node.parent
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            target = parent.child_by_field_name("object")
            caller = parent.parent
            if (target.type == "identifier" and target.text in (b"self", b"cls")
                    and not (caller.type == "call" and caller.child_by_field_name("function") == parent)):
                used.update(c for c in outside if c.kind == "method")  # a bound method handed on
            continue
        if _names_nothing(node, parent):
            continue
        wrapped = _in_wrapper_call(parent)
        used.update(c for c in outside if c.kind != "method" or wrapped)
    return used


_NAMING = frozenset({"function_definition", "class_definition", "keyword_argument", "default_parameter",
                     "typed_default_parameter"})  # their `name` field names what they define or pass
_BINDING = frozenset({"parameters", "lambda_parameters", "typed_parameter", "list_splat_pattern",
                      "dictionary_splat_pattern", "dotted_name", "aliased_import", "import_from_statement"})
_BRACKETS = frozenset({"argument_list", "list", "tuple", "dictionary", "set", "subscript", "parenthesized_expression",
                       "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"})


def _names_nothing(node: Any, parent: Any) -> bool:
    """A definition's, parameter's or keyword argument's own name, or a name in an import: not a use."""
    return (parent.type in _NAMING and parent.child_by_field_name("name") == node) or parent.type in _BINDING


def _in_wrapper_call(parent: Any) -> bool:
    """Whether the innermost brackets around a name are the arguments of staticmethod/classmethod/property/…."""
    while parent is not None and parent.type not in _BRACKETS:
        parent = parent.parent
    if parent is None or parent.type != "argument_list" or parent.parent.type != "call":
        return False
    func = parent.parent.child_by_field_name("function")
    callee = func.child_by_field_name("attribute") if func.type == "attribute" else func
    return callee is not None and callee.text.decode("utf-8", errors="replace") in _WRAPPERS


def _identifiers(root: Any) -> list[Any]:
    return _query().captures(root).get("name", [])


@functools.cache
def _parser() -> Any:
    import tree_sitter_python
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_python.language()))


def _query() -> Any:
    from tree_sitter import QueryCursor

    return QueryCursor(_identifier_query())


@functools.cache
def _identifier_query() -> Any:
    import tree_sitter_python
    from tree_sitter import Language, Query

    return Query(Language(tree_sitter_python.language()), "(identifier) @name")


def _named_again(text: str, by_name: dict[str, list[Candidate]]) -> set[str]:
    """Which names the text may use, a superset the tokens then decide: a word not after a dot other than a
    `def`/`class` statement's name (many classes of a file define a `get`), or `self.name` / `cls.name` not called
    (a bound method handed on). A method's bare name counts only inside a wrapper's brackets, so in a file without a
    wrapper call only its bound use is looked for. One pass over the text: a pattern of every name, or a search per
    name, cost 74 s on a 1.7 MB file of 60,000."""
    words = Counter(_WORD.findall(text))
    words.subtract(_DEFINED.findall(text))
    bound = set(_BOUND_VALUE.findall(text))
    wrapped = _WRAPPER_CALL.search(text) is not None
    return {name for name, found in by_name.items()
            if name in bound or (words[name] > 0 and (wrapped or any(c.kind != "method" for c in found)))}


_WORD = re.compile(r"(?<![\w.])[^\W\d]\w*")
_DEFINED = re.compile(r"(?<![\w.])(?:def|class)\s+([^\W\d]\w*)")
_WRAPPER_CALL = re.compile(r"\b(?:staticmethod|classmethod|property|cached_property)\s*\(")  # functools.… too
_SELF = frozenset({"self", "cls"})
_BOUND_VALUE = re.compile(r"(?<![\w.])(?:self|cls)\s*\.\s*([^\W\d]\w*)\b(?!\s*\()")  # not called: a value


def used_in_files(root: Path, candidates: dict[str, list[Candidate]]) -> set[tuple[str, Candidate]]:
    """(path, candidate) pairs whose own Python file uses them by name; `candidates` by path under `root`."""
    found = set()
    for path, in_file in candidates.items():
        if not path.endswith(".py"):
            continue
        text = read_source(root, path)
        if text is None:
            continue
        found |= {(path, c) for c in used_by_name(text, in_file)}
    return found
