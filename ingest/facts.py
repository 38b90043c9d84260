"""The data contract between parsing, resolution and the store.

Parsing turns one file into a `ParsedFile` (pure, cacheable by content hash, picklable). Resolution turns a
`ParsedFile` plus the other parsed files of the same repository into `Edge`s. Nothing from tree-sitter gets past
the parser and nothing from neo4j gets into `ingest/`: the store only ever sees these frozen dataclasses.

Names:
- A module's dotted name is its path relative to the ingested root without the extension, `/` → `.`
  (`src/flask/app.py` → `src.flask.app`; `pkg/__init__.py` → `pkg`). A language may strip a source root when
  it knows one (Python: a top folder without `__init__.py` that holds packages, e.g. `src/`).
- A symbol's qname is its module's dotted name plus the dotted chain of enclosing definitions
  (`flask.app.Flask.route`, `pkg.mod.outer.inner`). Code at module level belongs to the module's own qname.
- Targets outside the repository are `external` (`requests.get`, `os.path.join`), builtins are
  `<builtin>.len`; both become (:External) nodes in the graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Literal, TypeVar

T = TypeVar("T")

SymbolKind = Literal["class", "function", "method", "variable"]
EdgeKind = Literal["CALLS", "IMPORTS", "INHERITS"]
TargetKind = Literal["symbol", "module", "external", "builtin", "unresolved"]

# How a CALLS/IMPORTS/INHERITS target was found, strongest first. `implicit`: code the syntax runs without a call
# expression (`for` → `__iter__`, a property read → its getter, `map(f, xs)` → f). `override`: `self.m()` also
# runs a subclass's overriding `m` when the object is of that subclass. `argument`: a function handed to code kg
# cannot follow, which may call it (the edge starts where it is handed over). `name_only` and `dynamic` are guesses.
RESOLUTIONS = ("local", "import", "self", "inherited", "super", "constructor", "implicit", "inferred", "override",
               "argument", "name_only", "dynamic", "fixture")


def pickled_by_fields(cls: type[T]) -> type[T]:
    """Pickle a frozen, slotted dataclass as its constructor and field values (put it above `@dataclass`).

    The default pickle of such a class restores each object through `dataclasses._dataclass_setstate`, which calls
    `fields()` for every object: most of the time of loading a cached parse (hundreds of thousands of small facts
    per file). Calling the class with the values is ~3x faster to load, and the pickle is smaller."""
    names = tuple(f.name for f in fields(cls))
    values = attrgetter(*names)

    def __reduce__(self: T) -> tuple:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Symbol:
    qname: str
    name: str
    kind: SymbolKind
    start_line: int
    end_line: int
    parent: str  # qname of the enclosing module, class or function
    signature: str = ""
    doc: str = ""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Edge:
    kind: EdgeKind
    source: str  # qname of a symbol or module in this file
    target: str  # qname (symbol/module), dotted external name, or `<builtin>.name`
    target_kind: TargetKind
    line: int
    resolution: str  # one of RESOLUTIONS
    confidence: float  # 1.0 certain; candidates of an ambiguous call share the mass (each < 1.0)
    # CALLS only: the decorator's wrapper this call goes through to reach `target` (a call of a decorated function
    # runs the wrapper, which runs that function); "" for a direct call
    through: str = ""
    # IMPORTS only: made under `if TYPE_CHECKING:` (never runs: no import cycle, no load-time dependency)
    type_only: bool = False


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ParsedFile:
    path: str  # posix, relative to the ingested root
    lang: str
    module: str  # dotted module name (see above)
    loc: int
    symbols: tuple[Symbol, ...]
    syntax_errors: int = 0  # ERROR/MISSING nodes tree-sitter recovered from; what parsed is kept
    data: Any = field(default=None, compare=False)  # language-specific unresolved references, picklable
    # Why the parse stopped before the end (languages.syntax.parse_within_budget), one line for people; the file
    # then has no symbols or facts, only its module. "" for a parse that finished.
    gave_up: str = ""
