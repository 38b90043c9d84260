"""Phase 2c: the edges going out of one module, from resolve.py's values expanded by flows.py.

Edges and their `resolution` (see ingest.facts.RESOLUTIONS):
- `local`: target defined in this module (enclosing scopes included). `import`: reached through an import.
- `self` / `inherited`: `self.m()` / `cls.m()` found in the class itself / in an ancestor. `super`: `super().m()`.
- `constructor`: calling a class → the `__init__` (and `__new__`) its MRO finds in the project; the class itself
  when there is none (or a base from outside the project comes first: it has a constructor of its own).
- `implicit` (1.0): code the syntax runs without a call expression, on a value of known type: iteration
  (`__iter__`, `__next__`), `with` (`__enter__`, `__exit__`), operators and comparisons (`__add__`, `__eq__`,
  `__contains__`...), subscripts (`__getitem__`, `__setitem__`, `__delitem__`), f-strings (`__format__` or
  `__str__`), `len()` / `str()` / `repr()` / `print()`... (the dunder they call), property getters and setters,
  descriptors' `__get__`, `raise E` (E's constructor), and functions a builtin calls (`map(f, xs)`, `sorted(xs,
  key=f)`, `filter`, `min`/`max` key, `functools.reduce`, `list.sort(key=f)`).
- `inferred` (1.0): found through a variable, an annotation, an attribute, a return value, a container, a pytest
  fixture, or a parameter (what call sites pass: `def run(f): f()` called as `run(handler)` gives `run →
  handler`). A callable picked out of a container by a key kg cannot read (`handlers[name]()`) when the container
  holds several: each at DISPATCH_CONFIDENCE (0.6), one of them runs; also when a call hands such a subscript on and
  calls what it gives back (`ensure_sync(view_functions[endpoint])(...)`).
- `fixture` (1.0): a test or fixture to each fixture it requests. pytest, not the test's code, calls it before the
  test: a real run-time dependency that impact and tests-for follow, but no call the function makes, so call-graph
  exports in other tools' format (`kg export callgraph --format pycg`) leave it out.
- `override` (0.8): `self.m()` in a class also runs the `m` of a project subclass overriding it, when the object is
  of that subclass (what call sites pass to `self.m`'s parameters reaches the overriding method's too).
- `argument` (0.5): a function passed to code kg cannot follow (outside the project, or unknown): that code may
  call it (`threading.Thread(target=f)`), so the edge starts where it is handed over.
- `name_only`: a method called on an object of unknown type: one edge per project class defining that method,
  confidence min(0.5, 1/n), none when n > 8 or when lists, dicts, sets, str, bytes or tuples have a method of that
  name. On an object of a known project class that lacks the method (a base from outside the project has it, as
  werkzeug's `Client.post` for a test client subclassing it), the candidates are only the methods its project
  subclasses find along their MRO (a mixin's `self.helper()` → the sibling base's `helper`). A bare name bound
  nowhere gives one edge to the `unresolved` target `name` with confidence 0.
- `dynamic` (0.2): `getattr`, `eval`, `exec`, `__import__`, `importlib.import_module`; plus, when the attribute
  or module name is a string literal that resolves, an edge to that target too.
- Builtins: `<builtin>.len`, and methods of builtin types when the object's type is known: `<builtin>.str.join`,
  `<builtin>.dict.get` (target_kind `builtin`, resolution `import`). Code outside the repository: its dotted name
  (`os.path.join`, target_kind `external`).
- IMPORTS edges start at the module; INHERITS: class → base.
- Calls at module level come from the module qname, in a class body from the class, in decorators and default
  arguments from the enclosing scope, in a lambda from the lambda; calls in comprehensions belong to the enclosing
  function.

Decorator wrappers (`def timed(fn): def wrapper(*a): return fn(*a); return wrapper`) are context-sensitive: a call
of a decorated name gives an edge to the wrapper and one to the decorated function itself, `through` the wrapper
(nested wrappers: each through the one outside it), with the call's resolution. The wrapper's own `fn(...)` gets no
edge to the functions only decorations pass to `fn` (`Flows.decorated`): otherwise it would reach every function
the decorator wraps at confidence 1.0 (flask's `@setupmethod` wraps ~30 methods), and every caller of one of them
would reach all of them through it. Callers, impact and tests-for stay sound (each decorated function is linked
from its own callers, who do run it) and precise; the PyCG export gives a `through` call back to the wrapper, the call
the wrapper makes. What a non-decorating call passes (`timed(f)` called explicitly) still flows as before.

Two edges with the same source, target and line are one: the strongest resolution (then the highest confidence)
is kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from kg.ingest.facts import RESOLUTIONS, Edge, ParsedFile
from kg.ingest.languages.core import ARGUMENT_CONFIDENCE, NAME_ONLY_MAX, Tally, name_only_confidence
from kg.ingest.languages.python.facts import UNKNOWN_KEY, Arg, Call, Import, PyModule, Scope
from kg.ingest.languages.python.flows import Flows, Row, summarize
from kg.ingest.languages.python.resolve import (
    BUILTINS,
    SEP,
    Index,
    Resolved,
    Resolver,
    Value,
    dedupe,
    function_of,
    index_for,
    param_key,
)

DYNAMIC_BUILTINS = frozenset({"getattr", "eval", "exec", "__import__"})
DYNAMIC_EXTERNALS = frozenset({"importlib.import_module"})
OVERRIDE_CONFIDENCE = 0.8
# A callable picked out of a container by a key kg cannot read (`self.view_functions[rule.endpoint]()`): one of the
# container's n callables runs, so each is a candidate. Not 1/n: the container holds exactly these (no guess by
# name), and for a dispatch table most of them do run through this one call (flask's `dispatch_request` reaches 252
# of its 307 view functions in its own tests), so they stay in the PyCG export (0.6) but below certain edges.
DISPATCH_CONFIDENCE = 0.6
DYNAMIC_CONFIDENCE = 0.2
_RANK = {r: i for i, r in enumerate(RESOLUTIONS)}
# Methods of builtin containers and strings: called on an object of unknown type, they are not guessed.
BUILTIN_METHODS = frozenset(n for t in (list, dict, set, str, bytes, tuple) for n in dir(t) if not n.startswith("_"))
# Builtins that call the dunder method of their (first) argument: name → (dunder, fallback).
_DUNDER_BUILTINS = {"len": ("__len__", ""), "str": ("__str__", ""), "repr": ("__repr__", ""),
                    "bool": ("__bool__", "__len__"), "hash": ("__hash__", ""), "iter": ("__iter__", ""),
                    "next": ("__next__", ""), "abs": ("__abs__", ""), "int": ("__int__", "__index__"),
                    "float": ("__float__", ""), "complex": ("__complex__", ""), "format": ("__format__", "__str__"),
                    "reversed": ("__reversed__", ""), "round": ("__round__", ""), "bytes": ("__bytes__", ""),
                    "dir": ("__dir__", ""), "divmod": ("__divmod__", "")}
# Builtins and library functions that call a function they are given: name → (positions, keywords).
_CALLBACKS = {"map": ((0,), ()), "filter": ((0,), ()), "sorted": ((), ("key",)), "min": ((), ("key",)),
              "max": ((), ("key",)), "functools.reduce": ((0,), ()), "itertools.starmap": ((0,), ()),
              "itertools.filterfalse": ((0,), ()), "itertools.takewhile": ((0,), ()),
              "itertools.dropwhile": ((0,), ()), "itertools.groupby": ((1,), ("key",)),
              "itertools.accumulate": ((1,), ("func",)), "list.sort": ((), ("key",))}
# Builtins that never call a function argument: no `argument` edges from their calls.
_NO_CALLBACK = frozenset(BUILTINS) - {n for n in _CALLBACKS if "." not in n}
# Library functions that only copy metadata from or pass on the functions they get (a decorator's
# `update_wrapper(wrapper, f)` would otherwise hand every decorated function over at each decoration).
_NO_CALLBACK_EXTERNALS = frozenset({"functools.update_wrapper", "functools.wraps", "typing.cast",
                                    "asyncio.iscoroutinefunction"})
# Library modules whose functions only look at what they get (`inspect.iscoroutinefunction(f)`,
# `typing.get_type_hints`):
# flask's `ensure_sync(func)` asks inspect about every view function, which is no call of it.
_NO_CALLBACK_MODULES = ("inspect.", "typing.")


def _strongest(edges: Mapping[tuple, Edge], edge: Edge) -> bool:
    old = edges.get((edge.kind, edge.source, edge.target, edge.line))
    return old is None or (_RANK[edge.resolution], -edge.confidence) < (_RANK[old.resolution], -old.confidence)


class EdgeMaker:
    """The edges of one module, with the argument flows its edges read."""

    def __init__(self, res: Resolver, flows: Flows) -> None:
        self.res, self.flows = res, flows
        self.reads: set[str] = set()

    def values(self, chain: tuple[str, ...], scope: str, line: int, accessors: list[str] | None = None) -> Resolved:
        """Values of a chain, symbolic parameters expanded."""
        values = self.res.chain(chain, scope, 0, line, accessors)
        return self.flows.expand(self.res, values, self.reads, accessors)

    def expand(self, values: Resolved) -> Resolved:
        return self.flows.expand(self.res, values, self.reads)

    # -- calls
    def call_edges(self, call: Call) -> Iterator[Edge]:
        if call.kind == "fixture":  # pytest calls the fixture for the test
            for fixture in self.res.fixtures_for(call.chain[0], call.scope, 0):
                yield Edge("CALLS", call.scope, fixture, "symbol", call.line, "fixture", 1.0)
            return
        if call.kind == "implicit":
            yield from self.implicit_edges(call)
            return
        if call.kind == "attr":
            yield from self.attribute_edges(call)
            return
        found, hits = self.res.callee(call)
        accessors = list(hits)
        values = self.flows.expand(self.res, dedupe([(v, r) for v, r, _ in found]), self.reads, accessors)
        yield from self.accessor_edges(call, accessors)
        decorated = self.decorated_by_wrapper(call)
        if decorated:  # the wrapper's call of what it wraps: made at each call of a decorated name instead
            values = [(v, label) for v, label in values if v not in decorated]
        if call.kind == "raise":
            for (kind, name), _label in values:
                if kind == "class":
                    yield from self.constructor_edges(call, name, "implicit")
            return
        followed = False
        dispatched = self.dispatched(call, values)
        for value, label in values:
            kind, name = value
            if kind in ("func", "class", "instance", "wrapper"):
                followed = True
            if value in dispatched:
                for edge in self.value_edges(call, value, label):
                    yield replace(edge, confidence=min(edge.confidence, DISPATCH_CONFIDENCE))
                continue
            yield from self.value_edges(call, value, label)
        yield from self.override_edges(call, found)
        if not followed and not decorated and not any(v[0] == "builtin" and v[1] in _NO_CALLBACK for v, _ in values):
            yield from self.argument_edges(call, values)

    def dispatched(self, call: Call, values: Resolved) -> set[Value]:
        """The callables a call picks one of by a key kg cannot read, when there are several: `handlers[name]()`,
        or `ensure_sync(view_functions[endpoint])(...)` (a call's result that is what such a subscript gave)."""
        if len(call.chain) < 2 or call.chain[-1] not in (UNKNOWN_KEY, "()"):
            return set()
        callables = {v for v, _ in values if v[0] in ("func", "class", "wrapper")}
        if call.chain[-1] == "()":
            picked = {v for arg in call.callee_args if arg.chain[-1] == UNKNOWN_KEY and arg.name not in ("*", "**")
                      for v, _ in self.values(arg.chain, call.scope, call.line)}
            callables &= picked
        return callables if len(callables) > 1 else set()

    def decorated_by_wrapper(self, call: Call) -> set[Value]:
        """For a call of its decorator's first parameter in a wrapper (`def timed(fn): def wrapper(*a): return
        fn(*a)`), the definitions only decorations pass to it: those calls are made through the wrapper at each call
        of a decorated name (`function_edges`), so that the wrapper is not linked to every function it decorates."""
        if len(call.chain) != 1:
            return set()
        _info, scope = self.res.scope(call.scope)
        if scope is None or scope.kind != "function" or not scope.parent:
            return set()
        _info, outer = self.res.scope(scope.parent)
        if outer is None or outer.kind != "function" or not outer.params or outer.params[0].name != call.chain[0]:
            return set()
        if not self.res.wraps(call.scope, ("func", outer.qname)):
            return set()
        return self.flows.decorated.get(param_key(outer.qname, call.chain[0]), set())

    def function_edges(self, call: Call, value: Value, resolution: str, confidence: float) -> Iterator[Edge]:
        """Calling a function, or a decorated one's wrapper: the wrapper, and through it the decorated function
        (`through` names the wrapper; nested wrappers each go through the one outside)."""
        through = ""
        while value[0] == "wrapper":
            wrapper, kind, inner = value[1].split(SEP, 2)
            yield Edge("CALLS", call.scope, wrapper, "symbol", call.line, resolution, confidence, through)
            through, value = wrapper, (kind, inner)
        if value[0] == "func":
            yield Edge("CALLS", call.scope, value[1], "symbol", call.line, resolution, confidence, through)
        elif value[0] == "class" and through:
            for edge in self.constructor_edges(call, value[1], resolution):
                yield Edge(edge.kind, edge.source, edge.target, edge.target_kind, edge.line, edge.resolution,
                           confidence, through)

    def value_edges(self, call: Call, value: Value, label: str) -> Iterator[Edge]:
        src, line = call.scope, call.line
        kind, name = value
        if kind in ("func", "wrapper"):
            yield from self.function_edges(call, value, label, 1.0)
        elif kind == "class":
            yield from self.constructor_edges(call, name, label)
        elif kind == "instance":
            for found, r in self.expand(self.res.member(value, label, "__call__", 0)):
                if function_of(found):
                    yield Edge("CALLS", src, function_of(found), "symbol", line, _weaker(r, "inferred"), 1.0)
        elif kind == "builtin":
            if name in DYNAMIC_BUILTINS:
                yield Edge("CALLS", src, f"<builtin>.{name}", "builtin", line, "dynamic", DYNAMIC_CONFIDENCE)
                yield from self.dynamic_targets(call, name)
                return
            yield Edge("CALLS", src, f"<builtin>.{name}", "builtin", line, "import", 1.0)
            if name in _DUNDER_BUILTINS and call.args:
                dunder, alt = _DUNDER_BUILTINS[name]
                yield from self.dunder_edges(call, call.args[0].chain, dunder, alt)
            elif name == "print":
                for arg in call.args:
                    if not arg.name:
                        yield from self.dunder_edges(call, arg.chain, "__str__", "")
            if name in _CALLBACKS:
                yield from self.callback_edges(call, name)
        elif kind == "bmethod":
            method, _, _container = name.partition("\x00")
            yield Edge("CALLS", src, f"<builtin>.{method}", "builtin", line, "import", 1.0)
            if method in _CALLBACKS:
                yield from self.callback_edges(call, method)
        elif kind == "external":
            if name in DYNAMIC_EXTERNALS:
                yield Edge("CALLS", src, name, "external", line, "dynamic", DYNAMIC_CONFIDENCE)
                yield from self.dynamic_targets(call, name)
                return
            yield Edge("CALLS", src, name, "external", line, label, 1.0)
            if name in _CALLBACKS:
                yield from self.callback_edges(call, name)
        elif kind == "unknown":
            yield from self.unknown_edges(call, name, label)

    def override_edges(self, call: Call, found: list[tuple[Value, str, Value]]) -> Iterator[Edge]:
        """`self.m()` in a class also runs the `m` of each project subclass that overrides it, and `super().m()`
        the `m` that comes next in a subclass's MRO (a diamond), when the object is of that subclass: resolution
        `override`."""
        method = call.chain[-1]
        for value, _label, receiver in found:
            target = function_of(value)
            if not target or receiver[0] not in ("self", "super"):
                continue
            for sub in self.deciding_subclasses(receiver, method):
                others = (self.res.member(("instance", sub), "local", method, 0) if receiver[0] == "self" else
                          self.res.super_member(sub, receiver[1], method, 0))
                for other, _ in others:
                    if function_of(other) and function_of(other) != target:
                        yield Edge("CALLS", call.scope, function_of(other), "symbol", call.line, "override",
                                   OVERRIDE_CONFIDENCE)

    def deciding_subclasses(self, receiver: Value, method: str) -> list[str]:
        """The project subclasses of the receiver's class C whose objects `self.method()` (or `super().method()`) in
        C must be looked up for: all of them, unless every one has a single base. Then an object's MRO is its own
        line of classes down to C followed by C's MRO, so `super()` finds the same for every subclass (one answers
        for all), and `self.` finds the method of the nearest class on that line that binds it, or else what C's
        own MRO gives (the subclasses that bind the name, and one child of C that does not, answer for all). A
        chain of n classes then costs n lookups instead of n²/2."""
        subclasses = self.flows.subclasses(receiver[1], self.reads)
        single = self.flows.single_base
        for sub in subclasses:
            one = single.get(sub)
            if one is None:
                _info, scope = self.res.scope(sub)
                one = single[sub] = scope is not None and len([b for b, _ in scope.bases if b != ("object",)]) == 1
            if not one:
                return subclasses
        if receiver[0] == "super":
            return subclasses[:1]
        binding = [sub for sub in subclasses if self.binds(sub, method)]
        through = next((sub for sub in self.flows.direct_subclasses(receiver[1]) if not self.binds(sub, method)), None)
        return binding + [through] if through is not None else binding

    def binds(self, cls: str, name: str) -> bool:
        """Whether class `cls` binds `name` in its body or on `self` (where an instance lookup may stop)."""
        info, scope = self.res.scope(cls)
        return scope is not None and (name in info.names.get(cls, {}) or name in info.attrs.get(cls, {}))

    def constructor_edges(self, call: Call, cls: str, label: str) -> Iterator[Edge]:
        resolution = label if label in ("implicit",) else (
            "constructor" if label in ("local", "import", "self", "inherited", "super") else label)
        found = False
        for dunder in ("__new__", "__init__"):
            for (kind, target), _ in self.res.member(("class", cls), "local", dunder, 0):
                if kind == "func":
                    found = True
                    yield Edge("CALLS", call.scope, target, "symbol", call.line, resolution, 1.0)
        if not found:
            yield Edge("CALLS", call.scope, cls, "symbol", call.line, resolution, 1.0)

    def dunder_edges(self, call: Call, chain: tuple[str, ...], dunder: str, alt: str) -> Iterator[Edge]:
        """`dunder` (or `alt` when there is none) of every object `chain` may be."""
        dunders = self.res.index.dunders()
        if dunder not in dunders and alt not in dunders:
            return
        for value, label in self.values(chain, call.scope, call.line):
            if value[0] != "instance":
                continue
            for name in (dunder, alt):
                if not name:
                    continue
                found = [function_of(v) for v, _ in self.expand(self.res.member(value, label, name, 0))
                         if function_of(v)]
                for target in found:
                    yield Edge("CALLS", call.scope, target, "symbol", call.line, "implicit", 1.0)
                if found:
                    break

    def callback_edges(self, call: Call, name: str) -> Iterator[Edge]:
        positions, keywords = _CALLBACKS[name]
        positional = [a for a in call.args if not a.name]
        chosen = [positional[i] for i in positions if i < len(positional)]
        chosen += [a for a in call.args if a.name in keywords]
        for arg in chosen:
            for value, _ in self.values(arg.chain, call.scope, call.line):
                if function_of(value):
                    yield from self.function_edges(call, value, "implicit", 1.0)
                elif value[0] == "class":
                    yield from self.constructor_edges(call, value[1], "implicit")

    def argument_edges(self, call: Call, callee: Resolved) -> Iterator[Edge]:
        """Functions handed to code kg cannot follow: it may call them (0.5)."""
        if not callee or all(v[0] == "bmethod" or (v[0] == "external" and (
                v[1] in _NO_CALLBACK_EXTERNALS or v[1].startswith(_NO_CALLBACK_MODULES))) for v, _ in callee):
            return
        for arg in call.args:
            if "()" in arg.chain or arg.chain[0] in ("<lit>", "<str>", "?") or arg.chain[0].startswith("="):
                continue  # (a decorator applied to its definition does not hand it over: the name keeps it)
            for value, _ in self.values(arg.chain, call.scope, call.line):
                if function_of(value):
                    yield from self.function_edges(call, value, "argument", ARGUMENT_CONFIDENCE)

    def unknown_edges(self, call: Call, name: str, label: str) -> Iterator[Edge]:
        if len(call.chain) == 1 and label == "name_only":  # a bare name bound nowhere
            yield Edge("CALLS", call.scope, call.chain[0], "unresolved", call.line, "name_only", 0.0)
            return
        attr = call.chain[-1]
        hint, _, receiver = name.partition(SEP)
        if len(call.chain) < 2 or attr in ("()",) or attr.startswith("[") or hint != attr or attr in BUILTIN_METHODS:
            return
        if receiver:  # an object of a known class that lacks the method: only a subclass's can run
            candidates = self.subclass_methods(receiver, attr)
        else:
            candidates = [f"{cls}.{attr}" for cls in self.res.index.classes_with_method(attr)]
        confidence = name_only_confidence(len(candidates))
        if confidence is None:
            return
        for method in candidates:
            _info, scope = self.res.scope(method)
            wrappers = [v for v, _ in self.res.definition(method, 0, 0) if v[0] == "wrapper"] if (
                scope is not None and scope.decorators) else []
            for value in wrappers:  # a decorated method: its wrapper runs, and runs it
                yield from self.function_edges(call, value, "name_only", confidence)
            if not wrappers:
                yield Edge("CALLS", call.scope, method, "symbol", call.line, "name_only", confidence)

    def subclass_methods(self, cls: str, attr: str) -> list[str]:
        """The methods `attr` the project subclasses of `cls` find along their MRO (memoized per flow table: a base
        class of django's has hundreds of subclasses; more than NAME_ONLY_MAX of them draw no edge anyway)."""
        subclasses = self.flows.subclasses(cls, self.reads)
        key = (cls, attr)
        found = self.flows.subclass_methods.get(key)
        if found is None:
            methods: set[str] = set()
            for sub in subclasses:
                owner, values = self.res.find_member("instance", sub, attr, 0)
                if owner is not None and any(function_of(v) for v, _ in values):
                    methods.add(f"{owner}.{attr}")
                    if len(methods) > NAME_ONLY_MAX:
                        break
            found = self.flows.subclass_methods[key] = sorted(methods)
        return found

    def dynamic_targets(self, call: Call, name: str) -> Iterator[Edge]:
        if not call.literal:
            return
        if name == "getattr" and call.obj:
            for (kind, target), _ in self.values((*call.obj, call.literal), call.scope, call.line):
                if kind in ("func", "class"):
                    yield Edge("CALLS", call.scope, target, "symbol", call.line, "dynamic", DYNAMIC_CONFIDENCE)
        elif name in ("__import__", "importlib.import_module") and self.res.index.is_module(call.literal):
            yield Edge("CALLS", call.scope, call.literal, "module", call.line, "dynamic", DYNAMIC_CONFIDENCE)

    # -- implicit calls
    def implicit_edges(self, call: Call) -> Iterator[Edge]:
        """An implicit call's chain ends in the dunder it runs (`x.__iter__`), with `alt` as its fallback."""
        yield from self.dunder_edges(call, call.chain[:-1], call.chain[-1], call.alt)

    def attribute_edges(self, call: Call) -> Iterator[Edge]:
        """A property, a descriptor, `__getattr__` or (for a write) `__setattr__` run by an attribute access."""
        names = self.res.index.accessor_names()
        dunders = self.res.index.dunders()
        chain, store = call.chain, call.literal == "store"
        if not any(segment in names for segment in chain[1:]) and "__getattr__" not in dunders and not (
                store and "__setattr__" in dunders):
            return
        accessors: list[str] = []
        if store:
            for value, _ in self.values(chain[:-1], call.scope, call.line, accessors):
                accessors += self.res.store_accessors(value, chain[-1], 0)
        else:
            self.values(chain, call.scope, call.line, accessors)
        yield from self.accessor_edges(call, accessors)

    def accessor_edges(self, call: Call, accessors: list[str]) -> Iterator[Edge]:
        for target in dict.fromkeys(accessors):
            yield Edge("CALLS", call.scope, target, "symbol", call.line, "implicit", 1.0)


def _weaker(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def import_edges(res: Resolver, imp: Import) -> Iterator[Edge]:
    src = res.module
    if not imp.edge:
        return
    if imp.name in ("", "*"):
        kind = "module" if res.index.is_module(imp.module) else "external"
        yield Edge("IMPORTS", src, imp.module, kind, imp.line, "import", 1.0, type_only=imp.type_only)
        return
    if not res.index.is_module(imp.module):
        yield Edge("IMPORTS", src, f"{imp.module}.{imp.name}", "external", imp.line, "import", 1.0,
                   type_only=imp.type_only)
        return
    for (kind, target), _ in res.module_attr(imp.module, imp.name, 0):
        if kind in ("func", "class"):
            yield Edge("IMPORTS", src, target, "symbol", imp.line, "import", 1.0, type_only=imp.type_only)
        elif kind == "module":
            yield Edge("IMPORTS", src, target, "module", imp.line, "import", 1.0, type_only=imp.type_only)
        elif kind == "external":
            yield Edge("IMPORTS", src, target, "external", imp.line, "import", 1.0, type_only=imp.type_only)
        else:  # a module-level variable is a symbol too; anything else points at the module
            info, qname = res.index.info(imp.module), f"{imp.module}.{imp.name}"
            if info is not None and qname in info.symbols:
                yield Edge("IMPORTS", src, qname, "symbol", imp.line, "import", 1.0, type_only=imp.type_only)
            else:
                yield Edge("IMPORTS", src, imp.module, "module", imp.line, "import", 1.0, type_only=imp.type_only)


def inherit_edges(res: Resolver, scope: Scope) -> Iterator[Edge]:
    for chain, line in scope.bases:
        if chain == ("object",):
            continue
        for (kind, target), label in res.chain(chain, scope.parent or res.module):
            if kind == "class":
                resolution = "local" if label == "local" else "import"
                yield Edge("INHERITS", scope.qname, target, "symbol", line, resolution, 1.0)
            elif kind == "external":
                yield Edge("INHERITS", scope.qname, target, "external", line, "import", 1.0)
            elif kind == "builtin":
                yield Edge("INHERITS", scope.qname, f"<builtin>.{target}", "builtin", line, "import", 1.0)


# ------------------------------------------------------------------------------------------------ entry points


def module_flows(parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> frozenset[Row]:
    """The argument flows of one module (see flows.py)."""
    if not isinstance(parsed.data, PyModule):
        return frozenset()
    return summarize(Resolver(parsed, index_for(project)), parsed.data)


def _flows_for(index: Index, flows: Tally | None) -> Flows:
    """The flow table over `flows` (the project's argument flows, kept by the caller; computed here for the whole
    project once per project mapping when not given), made anew whenever they changed."""
    if flows is None:
        if index.summaries is None:
            index.summaries = Tally(module_flows(parsed, index.project) for _module, parsed in
                                    sorted(index.project.items()))
        flows = index.summaries
    entry = index.flow_tables.get(id(flows))
    if entry is None or entry[0] is not flows or entry[1] != flows.version:
        if len(index.flow_tables) >= 2:
            index.flow_tables.pop(next(iter(index.flow_tables)))
        entry = (flows, flows.version, Flows(flows))
        index.flow_tables[id(flows)] = entry
    return entry[2]  # type: ignore[return-value]


def resolve_module(parsed: ParsedFile, project: Mapping[str, ParsedFile],
                   flows: Tally | None = None) -> tuple[list[Edge], frozenset[str]]:
    """The CALLS, IMPORTS and INHERITS edges going out of `parsed`, and the parameter flows they read. `flows` is
    the tally of every module's argument flows (`module_flows`); without it they are computed for the whole project
    once (per project mapping)."""
    data = parsed.data
    if not isinstance(data, PyModule):
        return [], frozenset()
    index = index_for(project)
    res = Resolver(parsed, index)
    maker = EdgeMaker(res, _flows_for(index, flows))
    edges: dict[tuple, Edge] = {}

    def add(found: Iterator[Edge]) -> None:
        for edge in found:
            if _strongest(edges, edge):
                edges[(edge.kind, edge.source, edge.target, edge.line)] = edge

    for imp in data.imports:
        add(import_edges(res, imp))
    for scope in data.scopes:
        if scope.kind == "class":
            add(inherit_edges(res, scope))
    for call in data.calls:
        add(maker.call_edges(call))
    return list(edges.values()), frozenset(maker.reads)


__all__ = ["Arg", "module_flows", "resolve_module"]
