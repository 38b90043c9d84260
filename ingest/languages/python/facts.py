"""The facts `parse` keeps of one Python file (plain, picklable, no tree-sitter): what `resolve` reads."""

from __future__ import annotations

from dataclasses import dataclass

Chain = tuple[str, ...]  # ("a", "b", "()", "[]", "c"); roots "<lit>" / "?" mean "not a name"

@dataclass(frozen=True, slots=True)
class Binding:
    """`name` is bound in a scope. kind: class | func | prop (chain = (qname,)), alias | call | type | item (chain is
    the expression / callee / annotation / element), self | cls, param (an unannotated parameter without default: a
    pytest fixture for tests and fixtures, else unknown), unknown. `scope` is where `chain` is evaluated (set for
    `self.x = ...` attributes, which live on the class but are evaluated in the method)."""

    name: str
    kind: str
    chain: Chain
    line: int
    scope: str = ""


@dataclass(frozen=True, slots=True)
class Import:
    scope: str  # scope qname the name is bound in
    module: str  # absolute dotted module (relative imports already resolved)
    name: str  # imported name for `from m import name`, "" for `import m`, "*" for star imports
    alias: str  # local name bound ("a" for `import a.b`), "" when it binds nothing
    line: int
    edge: bool = True  # False for the binding-only half of `import a.b` (binds `a`, the edge goes to `a.b`)


@dataclass(frozen=True, slots=True)
class Call:
    """A call (`kind` "call"), a function reference passed as an argument (`kind` "ref"), or a parameter of a test
    or fixture that pytest may fill from a fixture of that name (`kind` "fixture", chain = (parameter,))."""

    scope: str
    chain: Chain
    line: int
    kind: str = "call"
    literal: str = ""  # string literal argument (getattr's 2nd, import_module's 1st)
    obj: Chain = ()  # getattr's first argument


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
