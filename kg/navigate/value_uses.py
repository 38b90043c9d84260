"""Definitions their own module uses by name without calling them: the facts dead-code needs that the graph lacks.

The graph records calls, imports and inheritance. A function handed to a builtin at class level
(`digest_method = staticmethod(_lazy_sha1)`, `value = property(_get)`), a class whose inherited classmethod is
called through it (`AsyncView.as_view("view")` resolves to `View.as_view`) or a class passed as a value
(`app.register(PassedView)`, `{"x": handler}`) leaves no edge to the definition. A name used this way is used in
the module that defines it (from elsewhere it would be imported, and the import is an edge), so only the
candidates' own files are read, as Python tokens: strings and comments never count.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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
        return set()  # most candidates: named once, where they are defined (tokenizing costs ~10 ms a file)
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
