"""The facts `parse` keeps of one Python file (plain, picklable, no tree-sitter): what `resolve` reads.

Expressions are kept as *chains*: `a.b(x).c[0]` is ("a", "b", "()", "c", "[0]"). A chain starts with a name or a
marker root and continues with segments:

- roots: a name; `?` (an expression kg does not follow); `<lit>` (a literal of no interesting type: numbers,
  None, booleans); `<str>`, `<bytes>`, `<list>`, `<dict>`, `<set>`, `<tuple>` (a literal of that builtin type with
  nothing kg tracks inside); `<lambdaN>` (a lambda of the scope, bound like a local function); `<cN>` (a
  container literal of the scope that holds functions, classes or objects: a synthetic name bound to its
  elements); `=qname` (the definition `qname` itself, e.g. the function a decorator receives).
- segments: an attribute name; `()` a call; `[]` a subscript with a key kg does not know, `[k]` one with the
  literal key k (`repr` of the int or str: `[0]`, `['name']`); `<iter>` an element got by iterating; `<enter>`
  what `with … as x` binds (`__enter__`'s result).
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.ingest.facts import pickled_by_fields

Chain = tuple[str, ...]

ITER = "<iter>"
ENTER = "<enter>"
UNKNOWN_KEY = "[]"


def is_subscript(segment: str) -> bool:
    return segment.startswith("[")


def subscript_key(segment: str) -> str:
    """The literal key of a subscript segment (`repr` form), "" when unknown."""
    return segment[1:-1]


def subscript(key: str) -> str:
    return f"[{key}]"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a call: `name` is the keyword, "" for a positional one, "*" / "**" for `*x` / `**x`."""

    chain: Chain
    name: str = ""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Binding:
    """`name` is bound in a scope. kind:

    - class | func | prop: a definition (chain = (qname,)); `prop` is a property, reading it calls the getter;
    - alias: the value of the expression `chain`; call: the result of calling `chain` with `args`;
    - type: an instance of the annotated class `chain`;
    - item: an element of the container `name` (stored at key `key`, "" when unknown): literal elements, `x[k] =
      v`, `x.append(v)`, `x.add(v)`, `x.setdefault(k, v)` ... (kept in `Scope.items` and class `attrs`: storing
      into a container does not bind its name); one `*` before the key per level of nesting (`x[a][b] = v` is
      `*'b'`-keyed: an element of an element of x);
    - self | cls: the first parameter of a method (chain = (class qname,));
    - param: a parameter without annotation (what call sites pass, its default, or a pytest fixture);
    - unknown: bound to something kg does not follow.

    `scope` is where `chain` is evaluated when that is not the scope holding the binding (`self.x = …` attributes
    live on the class and are evaluated in the method). `cond` marks a binding inside if/else, try/except, a loop or
    a match: an alternative that never hides the bindings before it.
    """

    name: str
    kind: str
    chain: Chain
    line: int
    scope: str = ""
    key: str = ""
    cond: bool = False
    args: tuple[Arg, ...] = ()


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Param:
    """A parameter in signature order. kind: pos (positional only), arg (positional or keyword), star (`*args`),
    kw (keyword only), dstar (`**kwargs`). `default` is evaluated in the scope enclosing the function."""

    name: str
    kind: str
    default: Chain = ()
    annotation: Chain = ()


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Overload:
    """One `@typing.overload` stub of a function: the signature it declares and the return type it gives calls whose
    arguments fit it. Stubs are no definitions of their own (the implementation is)."""

    params: tuple[Param, ...]
    return_type: Chain


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Import:
    scope: str  # scope qname the name is bound in
    module: str  # absolute dotted module (relative imports already resolved)
    name: str  # imported name for `from m import name`, "" for `import m`, "*" for star imports
    alias: str  # local name bound ("a" for `import a.b`), "" when it binds nothing
    line: int
    edge: bool = True  # False for the binding-only half of `import a.b` (binds `a`, the edge goes to `a.b`)
    cond: bool = False  # inside try/except or if/else: an alternative
    type_only: bool = False  # inside `if TYPE_CHECKING:`: never runs, only type checkers read it


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Call:
    """Something that runs code at `line` of `scope`. kind:

    - call: a call expression, `chain` its callee, `args` its arguments;
    - implicit: a dunder method the syntax calls on the value of `chain[:-1]` (`for` → `__iter__`, `a + b` →
      `__add__`, `with` → `__enter__`/`__exit__`, `x in y`, subscripts...); `alt` names the fallback dunder
      (`__iadd__` falls back to `__add__`);
    - attr: an attribute read (`chain` ends with the attribute; `literal` "store" for a write): a property getter
      or setter, a descriptor's `__get__` / `__set__`, `__getattr__` / `__setattr__`;
    - raise: `raise E` of a class constructs it;
    - fixture: a parameter of a test or fixture that pytest may fill from a fixture of that name (chain =
      (parameter,)).
    """

    scope: str
    chain: Chain
    line: int
    kind: str = "call"
    literal: str = ""  # string literal argument (getattr's 2nd, import_module's 1st)
    obj: Chain = ()  # getattr's first argument
    args: tuple[Arg, ...] = ()
    alt: str = ""
    callee_args: tuple[Arg, ...] = ()  # when the callee is itself a call's result (`f(x)(y)`): that call's arguments


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Scope:
    qname: str
    kind: str  # module | class | function
    parent: str  # enclosing scope qname, "" for the module
    bindings: tuple[Binding, ...] = ()
    bases: tuple[tuple[Chain, int], ...] = ()  # classes: (base chain, line)
    attrs: tuple[Binding, ...] = ()  # classes: `self.x = ...` from its methods
    returns: tuple[Chain, ...] = ()  # functions: returned expressions
    return_type: Chain = ()
    wrapped: bool = False  # functions: a decorator may have replaced the function with another object
    yields: tuple[Chain, ...] = ()  # functions: yielded expressions, one per `yield` (("<lit>",) for a bare one)
    fixture: str = ""  # functions decorated `@pytest.fixture`: the name tests request it by (`name=` or its own)
    fixture_decorator: Chain = ()  # ... and the decorator's chain (`("pytest", "fixture")`), checked by `resolve`
    params: tuple[Param, ...] = ()  # functions: the signature
    decorators: tuple[Chain, ...] = ()  # functions: decorator expressions as written (outermost first)
    decorator_args: tuple[tuple[Arg, ...], ...] = ()  # ... per decorator, the arguments of a factory (`@f(x)`)
    method: str = ""  # functions in a class: "static" (staticmethod), "class" (classmethod), "" (plain method)
    return_args: tuple[tuple[Arg, ...], ...] = ()  # per `returns` entry: the arguments of a returned call, else ()
    items: tuple[Binding, ...] = ()  # elements put into containers named in this scope (kind "item", see Binding)
    overloads: tuple[Overload, ...] = ()  # functions: the `@overload` stubs before the implementation, in order


# Builtin types a return annotation may name that hold no project object (`-> bool`, `-> str | None`). A function
# annotated with one returns that, whatever its return statements read, as a type checker reads it: so an edit of
# the locals those statements read cannot change what other modules infer of it (see python.interface_change).
SCALARS = frozenset({"str", "bytes", "int", "float", "bool"})


def returns_scalar(scope: Scope) -> bool:
    """Whether the function's return annotation names one of the SCALARS (its return statements are not read)."""
    return len(scope.return_type) == 1 and scope.return_type[0] in SCALARS


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class PyModule:
    is_package: bool
    scopes: tuple[Scope, ...]
    imports: tuple[Import, ...]
    calls: tuple[Call, ...]


def is_test(module: str, qname: str, parent_kind: str) -> bool:
    """A function pytest collects as a test: `test*` at module or class level of a test module (`test_x`, `x_test`,
    `tests`)."""
    last = module.rsplit(".", 1)[-1]
    in_test_module = last.startswith("test") or last.endswith(("_test", "tests"))
    return in_test_module and parent_kind in ("module", "class") and qname.rsplit(".", 1)[-1].startswith("test")
