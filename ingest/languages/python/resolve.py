"""Phase 2a: what an expression may be, evaluated over the facts of facts.py like a small abstract interpreter.

This module answers "what values may this chain have" for any chain in any scope of the project, without knowing
what call sites pass to parameters: a parameter evaluates to a *symbolic* value (`param`: "what F's parameter p
holds", plus the segments applied to it), which flows.py later expands with the arguments call sites pass. So
everything here depends only on the facts of the modules read (imports, bases, returns...), never on calls
elsewhere, and is memoized per project.

Values are (kind, name) pairs:

- func / class / module: a definition of the project (qname); prop: a property (its getter's qname);
- wrapper: the function a decorator returned that calls the decorated one (`W\\0kind\\0name`: wrapper W around
  the value (kind, name)): calling it runs W, and gives what the wrapped function returns;
- instance: an object of a project class; super: `super()` in a class;
- external: something outside the project (`os.path.join`); builtin: a builtin (`len`, `str`, or `str.join`
  when reached through a builtin type); bi: an object of a builtin type (`str`, `list`...);
- bmethod: a method of a builtin object (`dict.get`, bound to its container when there is one);
- elems: a builtin container of instances of the project class `name` (from an annotation: `list[A]`);
- container: a variable or attribute holding elements (`holder\\0name`: items stored into `name` of scope or class
  `holder`); pairs / pair: what `.items()` of a container gives and one of its elements;
- generator: what calling a generator function `name` gives;
- param: symbolic (`F#p\\0seg...`); star: `*args` / `**kwargs` of F as the container of what call sites pass
  (only flows.py makes those);
- unknown: nothing known (a name as hint, for `name_only` candidates); opaque: known, but nothing kg follows.

Names (LEGB): the current scope (a class body only sees its own bindings while it runs), enclosing functions, the
module's globals (own definitions, assignments, imports, then `*` imports), builtins. Within the scope of the use,
a name is what was bound before the use's line (all bindings when none came before, e.g. in a loop); elsewhere the
last bindings of the scope count. Among those, a binding made unconditionally hides every earlier one (`x = A;
x = B` is B); conditional ones (if/else, try/except, loops) are alternatives and all count. A later `*` import
hides an earlier one.

A binding may be a definition (a decorated one is what its decorators return: `@route(...)` returning its
argument leaves the function, a wrapper-returning decorator gives the wrapper; decorators outside the project leave
the function), an import (followed through package re-exports, with a cycle guard), an alias, a call result
(instance of a class; what a function returns, with the parameters it returns replaced by this call's arguments;
what a generator function gives is a generator), an annotated type, a property, a container (literal elements and
everything stored into it, flow-insensitively; keys are kept when they are literals), a parameter, a loop target
(an element of what is iterated: a container's elements, a generator's yields, `__iter__`/`__next__`), a `with`
target (`__enter__`'s result, a `@contextmanager` generator's yield), an unpacked element (by position), a pytest
fixture (below).

pytest fixtures: an unannotated parameter without default of a test (a `test*` function of a module or class, in a
module named `test*`, `*_test` or `*tests`) or of a fixture is the value of the closest fixture of that name,
searched in the enclosing class, the module (its own fixtures, then fixtures imported into it), then
`<package>.conftest` for the module's package and each parent package up to the root `conftest`. A fixture is a
module- or class-level function decorated `@pytest.fixture`, `@pytest.fixture(...)` or `@fixture` where the
decorator resolves to pytest's; `name="x"` renames it. A fixture of the same name as the requesting fixture is
skipped (an override asking for the one it overrides). Its value: what it yields if it is a generator, else what a
call of it returns.

Attributes: module → its global or submodule; class / instance → member found along the C3 MRO (depth-first when
C3 fails), then attributes assigned as `self.x = ...` in its methods; `super()` → the MRO after the enclosing class.
The MRO goes on past a base from outside the project, except for the attributes every class has (`dir(object)`:
the outside base may define them first); a builtin base (`dict`) answers for its own methods. A property read
calls the getter; a class attribute holding an object whose class defines `__get__` calls that (a descriptor).
"""

from __future__ import annotations

import builtins
import copy
from collections import Counter
from collections.abc import Mapping, Sequence

from kg.ingest.facts import RESOLUTIONS, ParsedFile
from kg.ingest.languages.core import MAX_CHAIN, Tally, per_project, tally
from kg.ingest.languages.python.facts import (
    ENTER,
    ITER,
    SCALARS,
    Arg,
    Binding,
    Call,
    Chain,
    Import,
    Param,
    PyModule,
    Scope,
    is_subscript,
    is_test,
    returns_scalar,
    subscript_key,
)

Value = tuple[str, str]
Resolved = list[tuple[Value, str]]  # values with their resolution label

BUILTINS = frozenset(dir(builtins))
BUILTIN_TYPES = {n: getattr(builtins, n) for n in dir(builtins) if isinstance(getattr(builtins, n), type)}
UNKNOWN: Value = ("unknown", "")
OPAQUE: Value = ("opaque", "")
# An object made by code outside the project (a library class or function called): nothing kg follows, but known
# not to be of a project class, so its methods are never guessed by name (see `typed`).
EXTERNAL_OBJECT: Value = ("opaque", "external")
NOTHING: Value = ("", "")
SEP = "\x00"
_NO_CUT = 1 << 30
_RANK = {r: i for i, r in enumerate(RESOLUTIONS)}
_PYTEST_MODULES = frozenset({"pytest", "_pytest", "pytest_asyncio"})  # whose `fixture` decorator makes fixtures
_LITERAL_TYPES = {"<str>": "str", "<bytes>": "bytes", "<list>": "list", "<dict>": "dict", "<set>": "set",
                  "<tuple>": "tuple"}
_OBJECT_ATTRS = frozenset(dir(object))
# Values a function may return that `Callable` (in an `@overload` stub's return type) describes.
_CALLABLE_KINDS = frozenset({"func", "wrapper", "class", "builtin", "external"})
# What calling a builtin returns, when it is an object of a builtin type.
_BUILTIN_RESULTS = {"str": "str", "repr": "str", "format": "str", "bytes": "bytes", "list": "list", "dict": "dict",
                    "set": "set", "frozenset": "frozenset", "tuple": "tuple", "sorted": "list", "int": "int",
                    "float": "float", "len": "int", "bool": "bool", "hex": "str", "oct": "str", "bin": "str",
                    "chr": "str", "ascii": "str", "input": "str"}
_STR_RESULTS = {"split": "list", "rsplit": "list", "splitlines": "list", "partition": "tuple", "rpartition": "tuple",
                "encode": "bytes", "startswith": "bool", "endswith": "bool", "find": "int", "rfind": "int",
                "index": "int", "rindex": "int", "count": "int", "isdigit": "bool", "isalpha": "bool"}
# Container methods whose result is an element, the container itself, or its (key, value) pairs.
_ELEMENT_METHODS = frozenset({"get", "pop", "setdefault", "popitem", "popleft", "__getitem__"})
_SELF_METHODS = frozenset({"copy", "values"})
# Library functions whose result is one of their arguments (by position): partial(f) calls f, cast(T, x) is x,
# update_wrapper(wrapper, wrapped) is the wrapper.
_PASS_THROUGH = {"functools.partial": 0, "typing.cast": 1, "functools.update_wrapper": 0, "copy.copy": 0,
                 "copy.deepcopy": 0, "dataclasses.replace": 0}


def weaker(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def typed(value: Value) -> bool:
    """Whether a value says its object is of no project class kg could guess a method of: made outside the project,
    or of a known project class that lacks the method (`("unknown", "method\\0class")`, see `Resolver.member`)."""
    return value == EXTERNAL_OBJECT or (value[0] == "unknown" and SEP in value[1])


def dedupe(values: Resolved) -> Resolved:
    """One entry per value with its strongest label; unknown / opaque values only when nothing is known."""
    if len(values) < 2:
        return values
    seen: dict[Value, str] = {}
    for v, r in values:
        if v not in seen or _RANK[r] < _RANK[seen[v]]:
            seen[v] = r
    known = [(v, r) for v, r in seen.items() if v[0] not in ("unknown", "opaque")]
    if known:
        if len(known) < len(seen) and all(v[0] == "param" for v, _ in known):
            # symbolic values may turn out to be nothing: keep what a known receiver's class said (`client.post`
            # on a fixture's FlaskClient, werkzeug's method), so that no guess by name replaces it (flows.expand)
            known += [(v, r) for v, r in seen.items() if typed(v)]
        return known
    return list(seen.items())


def function_of(value: Value) -> str:
    """The function a value calls when called: a function's qname, a wrapper's (see `Resolver.definition`), else ""."""
    if value[0] == "func":
        return value[1]
    if value[0] == "wrapper":
        return value[1].split(SEP, 1)[0]
    return ""


def param_key(function: str, name: str) -> str:
    """How a parameter is named in argument flows and reads: `pkg.mod.func#name`."""
    return f"{function}#{name}"


# ------------------------------------------------------------------------------------------------ per module


class ModuleInfo:
    """Dict views of one module's facts, built on first use."""

    def __init__(self, parsed: ParsedFile) -> None:
        data: PyModule = parsed.data
        self.parsed = parsed
        self.scopes: dict[str, Scope] = {}
        self.names: dict[str, dict[str, tuple[Binding | Import, ...]]] = {}
        self.attrs: dict[str, dict[str, list[Binding]]] = {}
        self.stars: list[Import] = []
        self.symbols = frozenset(s.qname for s in parsed.symbols)
        self.memo: dict[tuple, Resolved] = {}
        self.fixtures: dict[tuple[str, str], list[str]] = {}  # (module or class, requested name) → fixture qnames
        self._items: dict[tuple[str, str], list[Binding]] | None = None
        self._owners: dict[tuple[str, str], str] = {}
        names: dict[str, dict[str, list[Binding | Import]]] = {}
        for scope in data.scopes:
            self.scopes[scope.qname] = scope  # a name defined twice (`@overload` stubs...) is its last definition
            if scope.fixture:
                self.fixtures.setdefault((scope.parent, scope.fixture), []).append(scope.qname)
            table = names.setdefault(scope.qname, {})
            for b in scope.bindings:
                table.setdefault(b.name, []).append(b)
            attrs = self.attrs.setdefault(scope.qname, {})
            for b in scope.attrs:
                attrs.setdefault(b.name, []).append(b)
        for imp in data.imports:
            if imp.name == "*":
                if imp.scope == parsed.module:
                    self.stars.append(imp)
            elif imp.alias:
                names.setdefault(imp.scope, {}).setdefault(imp.alias, []).append(imp)
        self.names = {scope: {name: tuple(sorted(entries, key=lambda e: e.line)) for name, entries in table.items()}
                      for scope, table in names.items()}

    def renewed(self) -> ModuleInfo:
        """The same views for the next project: they depend on this module alone, but `memo` holds resolutions
        that read other modules, so it starts empty."""
        info = copy.copy(self)
        info.memo = {}
        return info

    def items(self, holder: str, name: str) -> list[Binding]:
        """Elements stored into variable `name` of scope `holder` (by code of that scope or of scopes nested in it
        that see the variable)."""
        if self._items is None:
            self._items = {}
            for scope in self.parsed.data.scopes:
                for item in scope.items:
                    owner = self.binding_scope(scope.qname, item.name)
                    self._items.setdefault((owner, item.name), []).append(
                        Binding(item.name, "item", item.chain, item.line, scope.qname, item.key, item.cond))
        return self._items.get((holder, name), [])

    def owner(self, scope: Scope, name: str) -> str:
        """The scope of this module that binds `name` as seen from `scope` (LEGB without globals: a class body sees
        its own names, its methods do not), "" when none does (memoized)."""
        key = (scope.qname, name)
        found = self._owners.get(key)
        if found is None:
            found = ""
            current: Scope | None = scope
            first = True
            while current is not None:
                if (current.kind != "class" or first) and name in self.names.get(current.qname, ()):
                    found = current.qname
                    break
                if current.kind == "module" or not current.parent:
                    break
                first = False
                current = self.scopes.get(current.parent)
            self._owners[key] = found
        return found

    def binding_scope(self, scope_qname: str, name: str) -> str:
        """The scope whose variable `name` a use in `scope_qname` refers to (LEGB within the module)."""
        scope = self.scopes.get(scope_qname)
        first = True
        while scope is not None:
            if (scope.kind != "class" or first) and name in self.names.get(scope.qname, {}):
                return scope.qname
            if not scope.parent:
                break
            first = False
            scope = self.scopes.get(scope.parent)
        return self.parsed.module


class Index:
    """Per-project lookup tables, filled lazily."""

    def __init__(self, project: Mapping[str, ParsedFile], previous: Index | None = None) -> None:
        self.project = project
        self.infos: dict[str, ModuleInfo] = {}
        # After a change the pipeline hands over a new mapping that mostly holds the same parses: their views
        # are taken over from the previous index instead of rebuilt (0.5 s on django).
        self._previous_infos = previous.infos if previous is not None else {}
        self._packages: set[str] | None = None
        self._methods: dict[str, list[str]] = {}  # method name → classes_with_method
        self._class_members: Tally | None = None  # see `_members`
        self.module_attrs: dict[tuple[str, str], Resolved] = {}
        self.mros: dict[str, list[str]] = {}
        self.mro_positions: dict[str, dict[str, int]] = {}  # class → where each class stands in its memoised MRO
        self.members: dict[tuple[str, str, str], tuple[str | None, Resolved]] = {}
        self.results: dict[tuple[str, str], Resolved] = {}  # (function, kind) → return / yield values
        self.definitions: dict[tuple[str, int], Resolved] = {}
        self.elements: dict[tuple[str, str, int, int], Resolved] = {}
        self.scopes: dict[str, tuple[ModuleInfo, Scope] | None] = {}  # qname → where it is defined
        self.callees: dict[int, tuple[object, list, tuple[str, ...]]] = {}  # id(call) → (call, callee, accessors)
        self.summaries: Tally | None = None  # all modules' argument flows, when the caller keeps none (flows.py)
        self.flow_tables: dict[int, tuple[Tally, int, object]] = {}  # id(flows) → (flows, version, flows.Flows)

    def info(self, module: str) -> ModuleInfo | None:
        parsed = self.project.get(module)
        if parsed is None or not isinstance(parsed.data, PyModule):
            return None
        info = self.infos.get(module)
        if info is None or info.parsed is not parsed:
            earlier = self._previous_infos.get(module)
            info = earlier.renewed() if earlier is not None and earlier.parsed is parsed else ModuleInfo(parsed)
            self.infos[module] = info
        return info

    def is_module(self, name: str) -> bool:
        if name in self.project:
            return True
        if self._packages is None:
            self._packages = {".".join(m.split(".")[:i]) for m in self.project for i in range(1, m.count(".") + 1)}
        return name in self._packages

    def module_of(self, qname: str) -> tuple[ModuleInfo, Scope] | None:
        """The module info and scope that define `qname` (a class or function)."""
        if qname in self.scopes:
            return self.scopes[qname]
        found = self._module_of(qname)
        self.scopes[qname] = found
        return found

    def _module_of(self, qname: str) -> tuple[ModuleInfo, Scope] | None:
        parts = qname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            info = self.info(".".join(parts[:i]))
            if info is not None:
                scope = info.scopes.get(qname)
                return (info, scope) if scope is not None else None
        return None

    def classes_with_method(self, name: str) -> list[str]:
        """The project classes whose body binds a method `name` (a class binding it twice counts twice)."""
        found = self._methods.get(name)
        if found is None:
            found = [] if name.startswith("<") else sorted(
                cls for (cls, kind), times in self._members().get(name).items() if kind == "func" for _ in range(times))
            self._methods[name] = found
        return found

    def accessor_names(self) -> _Members:
        """Names of properties and of class attributes bound to a call result (maybe a descriptor) anywhere in the
        project: an attribute read of any other name runs nothing kg follows."""
        return _Members(self._members(), ("prop", "call"))

    def dunders(self) -> _Members:
        """Dunder method names some project class defines: an implicit call of any other one runs no project code."""
        return _Members(self._members(), ("func", "prop", "alias"), dunder=True)

    def _members(self) -> Tally:
        if self._class_members is None:
            self._class_members = tally(self.project, "class_members", class_members)
        return self._class_members


class _Members:
    """The member names bound in some project class body by one of `kinds` (`name in members`), looked up per
    name in the class-member tally instead of collected for the whole project."""

    def __init__(self, members: Tally, kinds: tuple[str, ...], dunder: bool = False) -> None:
        self._members, self._kinds, self._dunder = members, kinds, dunder

    def __contains__(self, name: object) -> bool:
        if self._dunder and not (isinstance(name, str) and name.startswith("__")):
            return False
        return any(kind in self._kinds for _cls, kind in self._members.get(name))


def class_members(parsed: ParsedFile) -> tuple[tuple[str, str, str], ...]:
    """(name, class, binding kind) of every name bound in a class body of the module, a class defined twice by its
    last definition (as ModuleInfo.scopes): the rows of the project-wide class-member tally (`Index._members`)."""
    if not isinstance(parsed.data, PyModule):
        return ()
    scopes = {scope.qname: scope for scope in parsed.data.scopes}
    return tuple((b.name, scope.qname, b.kind) for scope in scopes.values() if scope.kind == "class"
                 for b in scope.bindings)


index_for = per_project(lambda project, previous: Index(project, previous=previous), reuse=True)


# -------------------------------------------------------------------------------------------------- evaluation


class Resolver:
    """Evaluates chains for one file (and, through it, in any scope of the project)."""

    def __init__(self, parsed: ParsedFile, index: Index) -> None:
        self.parsed, self.index = parsed, index
        self.module = parsed.module
        self.info = index.info(parsed.module) or ModuleInfo(parsed)
        self.active: dict[tuple, int] = {}  # cycle guard: what is being computed → its place on the stack
        self.low = _NO_CUT  # the lowest stack place a cycle cut short since the computation began (see `begin`)

    # -- scopes
    def scope(self, qname: str) -> tuple[ModuleInfo, Scope | None]:
        if qname in self.info.scopes:
            return self.info, self.info.scopes[qname]
        if qname in self.index.project:
            info = self.index.info(qname)
            if info is not None:
                return info, info.scopes.get(qname)
        found = self.index.module_of(qname)
        if found is None:
            return self.info, None
        return found[0], found[1]

    def guarded(self, key: tuple, depth: int) -> bool:
        """Whether `key` may be computed now (not already on the stack, depth left); notes the cut when not."""
        if key in self.active:
            self.low = min(self.low, self.active[key])
            return False
        if depth > MAX_CHAIN:
            self.low = -1  # depends on how deep the lookup began: never memoized
            return False
        return True

    def push(self, key: tuple) -> None:
        self.active[key] = len(self.active)

    def begin(self) -> tuple[int, int]:
        """Start a computation whose result may be memoized: call `done` with what this returns when it ends.

        A cycle guard cuts a lookup of something already being computed short, so what depends on the cut is
        incomplete. A result is memoized only when every cut during its computation was of itself or of something
        it started (a stack place at or above its own): then it is what a fresh lookup of it gives, whatever asked
        for it. A cut of something begun before it (further down the stack) makes it depend on who asked, so it is
        not memoized, and neither is anything up to that place. (Memoizing only results with no cut at all left
        most results of recursive code uncached: 2–3× the work on django.)"""
        saved, self.low = self.low, _NO_CUT
        return len(self.active), saved

    def done(self, token: tuple[int, int]) -> bool:
        """Whether the computation `begin` gave `token` to may be memoized; passes its cuts on to the enclosing one."""
        mark, saved = token
        clean = self.low >= mark
        self.low = min(saved, self.low)
        return clean

    # -- names
    def lookup(self, name: str, scope_qname: str, depth: int = 0, line: int = 0) -> Resolved:
        """LEGB lookup of a bare name from `scope_qname`; `line` is the use's line in that scope (0: anywhere)."""
        info, scope = self.scope(scope_qname)
        if scope is not None:
            owner = info.owner(scope, name)
            if owner:
                entries = info.names[owner][name]
                return self.bound(info, owner, name, entries, depth, line if owner == scope.qname else 0)
        module_name = info.parsed.module
        if scope is None or scope.qname != module_name:
            found = self.global_name(module_name, name, depth)
            if found:
                return found
        else:
            found = self.star_name(info, name, depth)
            if found:
                return found
        if name in BUILTINS:
            return [(("builtin", name), "import")]
        return []

    def global_name(self, module: str, name: str, depth: int) -> Resolved:
        info = self.index.info(module)
        if info is None:
            return []
        table = info.names.get(module, {})
        if name in table:
            return self.bound(info, module, name, table[name], depth)
        return self.star_name(info, name, depth)

    def star_name(self, info: ModuleInfo, name: str, depth: int, before: int = 0) -> Resolved:
        """`name` from the module's `*` imports, the last one first (a later `*` import hides an earlier one)."""
        for star in reversed(info.stars):
            if before and star.line >= before:
                continue
            if self.index.info(star.module) is not None:
                found = self.module_attr(star.module, name, depth + 1, submodules=False)
                if found and not all(v[0] == "unknown" for v, _ in found):
                    return found
            elif not self.index.is_module(star.module):
                return [(OPAQUE, "import")]  # `from external import *` may define it
        return []

    def visible(self, entries: Sequence[Binding | Import], line: int) -> tuple[int, int]:
        """The slice of `entries` (in line order) a use at `line` sees: those before the line (all when none is),
        from the last unconditional one on."""
        stop = len(entries)
        if stop == 1:
            return 0, 1
        if line:
            before = sum(1 for e in entries if e.line < line)
            stop = before or stop
        start = 0
        for i in range(stop - 1, -1, -1):
            if not entries[i].cond:
                start = i
                while start and entries[start - 1].line == entries[i].line:  # bound together (a parameter)
                    start -= 1
                break
        return start, stop

    def bound(self, info: ModuleInfo, scope_qname: str, name: str, entries: Sequence[Binding | Import], depth: int,
              line: int = 0) -> Resolved:
        """Values of a name's visible bindings in one scope, plus its container when elements are stored into it
        (memoized on the module info unless a cycle cut it short)."""
        start, stop = self.visible(entries, line)
        key = (scope_qname, name, start, stop)
        cached = info.memo.get(key)
        if cached is not None:
            return cached
        active_key = ("bound", info.parsed.module, *key)
        if not self.guarded(active_key, depth):
            return []
        token, out = self.begin(), []
        self.push(active_key)
        try:
            for entry in entries[start:stop]:
                if isinstance(entry, Import):
                    out.extend(self.imported(entry, depth))
                else:
                    out.extend(self.binding(entry, entry.scope or scope_qname, depth))
            if info.scopes.get(scope_qname) is not None and info.items(scope_qname, name):
                out.append((("container", f"{scope_qname}{SEP}{name}"), "inferred"))
            if info.parsed.module == scope_qname and len(entries) == stop and any(
                    s.line > entries[stop - 1].line for s in info.stars):
                starred = self.star_name(info, name, depth + 1)  # a later `*` import that has the name rebinds it
                if starred and starred[0][0] != OPAQUE:
                    out = starred
        finally:
            self.active.pop(active_key, None)
        out = dedupe(out)
        if self.done(token):
            info.memo[key] = out
        return out

    def imported(self, imp: Import, depth: int) -> Resolved:
        if imp.name:
            return self.module_attr(imp.module, imp.name, depth + 1)
        if self.index.is_module(imp.module):
            return [(("module", imp.module), "import")]
        return [(("external", imp.module), "import")]

    def binding(self, b: Binding, scope_qname: str, depth: int) -> Resolved:
        kind = b.kind
        if kind == "func":
            return self.definition(b.chain[0], 0, depth)
        if kind == "class":
            return [(("class", b.chain[0]), "local")]
        if kind == "prop":
            return [(("prop", b.chain[0]), "local")]
        if kind == "self":
            return [(("instance", b.chain[0]), "self")]
        if kind == "cls":
            return [(("class", b.chain[0]), "self")]
        if kind == "alias":
            return [(v, weaker(r, "inferred")) for v, r in self.chain(b.chain, scope_qname, depth + 1, b.line)]
        if kind == "call":
            callee = self.chain(b.chain, scope_qname, depth + 1, b.line)
            out: Resolved = []
            for value, label in callee:
                out.extend(self.call_result(value, label, depth + 1, b.args, scope_qname, b.line))
            return out
        if kind == "param":
            return self.param_value(b.name, scope_qname, depth + 1)
        if kind == "type":  # an instance of the annotated class (`key` "[]": a container of such instances)
            out = []
            made = "elems" if b.key == "[]" else "instance"
            for v, r in self.chain(b.chain, scope_qname, depth + 1):
                out.append((((made, v[1]) if v[0] == "class" else OPAQUE), weaker(r, "inferred")))
            return out
        return [(UNKNOWN, "inferred")]

    def param_value(self, name: str, function: str, depth: int) -> Resolved:
        """A parameter: what call sites pass (symbolic, see flows.py), its default, or a pytest fixture."""
        _info, scope = self.scope(function)
        out: Resolved = [(("param", param_key(function, name)), "inferred")]
        param = next((p for p in scope.params if p.name == name), None) if scope is not None else None
        if param is not None and param.default:
            out += [(v, weaker(r, "inferred")) for v, r in self.chain(param.default, scope.parent, depth + 1)]
        out += self.fixture_value(name, function, depth + 1)
        return out

    def definition(self, qname: str, start: int, depth: int) -> Resolved:
        """The value a decorated definition's name holds: its decorators from index `start` on applied (innermost
        first) to it. A decorator of the project is called with the function as argument; one from outside
        (functools.lru_cache, pytest.fixture) is taken to leave it a function."""
        key = (qname, start)
        cached = self.index.definitions.get(key)
        if cached is not None:
            return cached
        info, scope = self.scope(qname)
        own: Resolved = [((scope.kind if scope is not None and scope.kind == "class" else "func", qname), "local")]
        if scope is None or len(scope.decorators) <= start:
            return own
        if not self.guarded(("definition", key), depth):
            return own
        token = self.begin()
        self.push(("definition", key))
        try:
            current = own
            enclosing = scope.parent or info.parsed.module
            for index in range(len(scope.decorators) - 1, start - 1, -1):
                applied: Resolved = []
                arg = (Arg((f"={qname}@{index + 1}" if index + 1 < len(scope.decorators) else f"={qname}",)),)
                for value, label in self.decorator(scope, index, enclosing, depth + 1):
                    if value[0] in ("func", "class", "instance", "wrapper"):
                        for v, r in self.call_result(value, label, depth + 1, arg, enclosing, 0):
                            if v[0] == "func" and self.wraps(v[1], value):
                                v = ("wrapper", f"{v[1]}{SEP}{current[0][0][0]}{SEP}{current[0][0][1]}")
                            if v[0] not in ("unknown", "opaque"):
                                applied.append((v, weaker(r, "inferred")))
                current = dedupe(applied) if applied else current
        finally:
            self.active.pop(("definition", key), None)
        if self.done(token):
            self.index.definitions[key] = current
        return current

    def decorator(self, scope: Scope, index: int, enclosing: str, depth: int) -> Resolved:
        """The value of a definition's decorator expression (a factory called with its own arguments)."""
        chain = scope.decorators[index]
        args = scope.decorator_args[index] if index < len(scope.decorator_args) else ()
        if chain[-1] == "()":  # a factory called with these arguments (none is a known count too)
            return [r for v, lab in self.chain(chain[:-1], enclosing, depth) for r in
                    self.call_result(v, lab, depth, args, enclosing, 0)]
        return self.chain(chain, enclosing, depth)

    def wraps(self, inner: str, decorator: Value) -> bool:
        """Whether function `inner`, returned by `decorator` (a function), is a wrapper that returns a call of the
        decorator's first parameter (`def wrapper(*a, **k): return fn(*a, **k)`)."""
        if decorator[0] != "func" or not inner.startswith(decorator[1] + "."):
            return False
        _info, outer = self.scope(decorator[1])
        _info, scope = self.scope(inner)
        if outer is None or scope is None or not outer.params or scope.parent != outer.qname:
            return False
        wrapped = outer.params[0].name
        return any(ret[0] == wrapped and ret[1:2] == ("()",) for ret in scope.returns)

    def module_attr(self, module: str, attr: str, depth: int, submodules: bool = True) -> Resolved:
        """`module.attr`, following re-exports; submodule fallback; external when outside the project."""
        key = (module, attr)
        cached = self.index.module_attrs.get(key)
        if cached is not None:
            return cached
        if not self.guarded(("attr", key), depth):
            return []
        token = self.begin()
        self.push(("attr", key))
        try:
            found = self.global_name(module, attr, depth + 1) if self.index.info(module) else []
            found = [(v, "import" if r in ("local", "self") else r) for v, r in found]
            dotted = f"{module}.{attr}"
            if not found and submodules and self.index.is_module(dotted):
                found = [(("module", dotted), "import")]
            if not found and not self.index.is_module(module):
                found = [(("external", dotted), "import")]
            if not found:
                found = [(("unknown", dotted), "import")]
        finally:
            self.active.pop(("attr", key), None)
        if self.done(token) and submodules:
            self.index.module_attrs[key] = found
        return found

    # -- chains
    def callee(self, call: Call) -> tuple[list[tuple[Value, str, Value]], tuple[str, ...]]:
        """What a call's callee may be, each with the value it was looked up on (NOTHING for a bare name, a call's
        result or a subscript; ("self", class) for the `self` of a method), and the property getters and
        descriptors run on the way. A callee that is a call's
        result (`app.route("/")(f)`, `self.ensure_sync(view)(...)`) is what *that* call returns with its arguments.
        Memoized per call: the argument flows and the edges both need it."""
        key = id(call)
        found = self.index.callees.get(key)
        if found is not None and found[0] is call:
            return found[1], found[2]
        chain, accessors = call.chain, []
        token = self.begin()
        if len(chain) >= 2 and chain[-1] != "()" and not is_subscript(chain[-1]) and chain[-1][0] != "<":
            found = [(v, r, ("self", rv[1]) if rv[0] == "instance" and lab == "self" else rv)
                     for rv, lab in self.chain(chain[:-1], call.scope, 0, call.line, accessors)
                     for v, r in self.step(rv, lab, chain[-1], 1, accessors)]
        elif len(chain) >= 2 and chain[-1] == "()":
            found = [(v, r, NOTHING) for fv, lab in self.chain(chain[:-1], call.scope, 0, call.line, accessors)
                     for v, r in self.call_result(fv, lab, 1, call.callee_args, call.scope, call.line)]
        else:
            found = [(v, r, NOTHING) for v, r in self.chain(chain, call.scope, 0, call.line, accessors)]
        kept = {(v, k) for v, _, k in found if v[0] not in ("unknown", "opaque")}
        if kept and all(v[0] == "param" for v, _ in kept):  # as in `dedupe`: a known receiver's class counts
            kept |= {(v, k) for v, _, k in found if typed(v)}
        best: dict[tuple[Value, Value], str] = {}
        for v, r, k in found:
            if (not kept or (v, k) in kept) and ((v, k) not in best or _RANK[r] < _RANK[best[(v, k)]]):
                best[(v, k)] = r
        out = [(v, r, k) for (v, k), r in best.items()]
        hits = tuple(dict.fromkeys(accessors))
        if self.done(token):
            self.index.callees[key] = (call, out, hits)
        return out, hits

    def chain(self, chain: Chain, scope_qname: str, depth: int = 0, line: int = 0,
              accessors: list[str] | None = None) -> Resolved:
        """Values of `chain` evaluated in `scope_qname` (at `line` of that scope when given). Property getters and
        descriptors run on the way are appended to `accessors` when a list is given."""
        if not chain:
            return []
        if depth > MAX_CHAIN:
            self.low = -1
            return []
        current = self.root(chain, scope_qname, depth, line)
        rest = chain[2:] if chain[0] == "super" and chain[1:2] == ("()",) else chain[1:]
        own = scope_qname + SEP
        for segment in rest:
            nxt: Resolved = []
            for value, label in current:
                if line and value[0] == "container" and is_subscript(segment) and value[1].startswith(own):
                    # an element of a container of this scope, read at `line`: what was stored there before
                    nxt.extend(self.elements(value[1], subscript_key(segment), depth + 1, label, before=line))
                else:
                    nxt.extend(self.step(value, label, segment, depth + 1, accessors))
            current = dedupe(nxt)
            if not current:
                break
        return current

    def root(self, chain: Chain, scope_qname: str, depth: int, line: int) -> Resolved:
        name = chain[0]
        if name == "?":
            return [(UNKNOWN, "inferred")]
        if name == "<lit>":
            return [(OPAQUE, "inferred")]
        if name in _LITERAL_TYPES:
            return [(("bi", _LITERAL_TYPES[name]), "inferred")]
        if name.startswith("="):  # a definition itself (`=qname`), or with its decorators from index i (`=qname@i`)
            qname, _, start = name[1:].partition("@")
            return self.definition(qname, int(start or 0), depth + 1) if start else self.definition(
                qname, 10**6, depth + 1)
        if name == "super" and chain[1:2] == ("()",):
            cls = self.enclosing_class(scope_qname)
            return [(("super", cls), "super")] if cls else [(OPAQUE, "super")]
        return self.lookup(name, scope_qname, depth, line) or [(("unknown", name), "name_only")]

    def step(self, value: Value, label: str, segment: str, depth: int,
             accessors: list[str] | None = None) -> Resolved:
        kind, name = value
        if kind == "param":
            return [((kind, f"{name}{SEP}{segment}"), label)]
        if segment == "()":
            return self.call_result(value, label, depth)
        if is_subscript(segment):
            return self.item_of(value, label, subscript_key(segment), depth)
        if segment == ITER:
            return self.iterate(value, label, depth)
        if segment == ENTER:
            return self.enter(value, label, depth)
        if kind == "module":
            return [(v, weaker(r, label)) for v, r in self.module_attr(name, segment, depth)]
        if kind == "external":
            return [(("external", f"{name}.{segment}"), label)]
        if kind in ("class", "instance", "super"):
            return self.member(value, label, segment, depth, accessors)
        if kind == "unknown":
            return [(("unknown", segment), label)]
        if kind == "bi":
            return [(("bmethod", f"{name}.{segment}"), label)] if hasattr(BUILTIN_TYPES.get(name), segment) else [
                (OPAQUE, label)]
        if kind == "container":
            type_ = self.container_type(name)
            if type_ and hasattr(BUILTIN_TYPES[type_], segment):
                return [(("bmethod", f"{type_}.{segment}{SEP}{name}"), label)]
            return [(OPAQUE, label)]
        if kind == "elems":  # what its methods give: an element (get, pop...) or itself (copy, values)
            return [(("emethod", f"{segment}{SEP}{name}"), label)]
        if kind == "builtin" and name in BUILTIN_TYPES and "." not in name and hasattr(BUILTIN_TYPES[name], segment):
            return [(("builtin", f"{name}.{segment}"), label)]
        if value == EXTERNAL_OBJECT and segment[0] not in "[<":  # a library object's attribute: the library's
            return [(EXTERNAL_OBJECT, label)]
        if kind == "func" and segment and self.is_wrapped(name):
            # `@click.command() def cli(): ...` then `cli.main()`: a decorator from outside made `cli` some object
            # of a type kg cannot see; its methods get the candidates of any object of unknown type.
            return [(("unknown", segment), label)]
        return [(OPAQUE, label)]

    def is_wrapped(self, qname: str) -> bool:
        _info, scope = self.scope(qname)
        return scope is not None and scope.wrapped

    # -- what calling something gives
    def call_result(self, value: Value, label: str, depth: int, args: tuple[Arg, ...] | None = None,
                    scope: str = "", line: int = 0) -> Resolved:
        """What calling `value` gives. With the call's `args` (evaluated in `scope`; None: not known), a function's
        parameters that it returns are replaced by what this call passes (so `identity(f)` is `f` here, whatever
        others pass), and its `@overload` stubs narrow the result (see `overloaded`)."""
        kind, name = value
        label = weaker(label, "inferred")
        if kind == "class":
            return [(("instance", name), label)]
        if kind == "func":
            results = self.results(name, "returns", depth)
            if args and any(v[0] == "param" for v, _ in results):
                results = self.substitute(name, results, args, scope, line, depth)
            results = self.overloaded(name, results, args, scope, line, depth)
            return [(v, weaker(r, label)) for v, r in results] or [(UNKNOWN, label)]
        if kind == "instance":
            found = self.member(value, label, "__call__", depth)
            return [r for v, lab in found if v[0] == "func" for r in self.call_result(v, lab, depth + 1, args, scope,
                                                                                       line)]
        if kind == "builtin":
            if name in _BUILTIN_RESULTS:
                return [(("bi", _BUILTIN_RESULTS[name]), label)]
            if name in ("staticmethod", "classmethod") and args:  # `conv = staticmethod(helper)`: self.conv is helper
                return self.chain(args[0].chain, scope, depth + 1, line)
            if name in ("iter", "reversed", "next") and args:
                arg = self.chain(args[0].chain, scope, depth + 1, line)
                step = ITER if name == "next" else None
                return arg if step is None else [r for v, lab in arg for r in self.iterate(v, lab, depth + 1)]
            return [(OPAQUE, label)]
        if kind == "bmethod":
            return self.bmethod_result(name, label, depth)
        if kind == "emethod":
            method, _, cls = name.partition(SEP)
            if method in _ELEMENT_METHODS:
                return [(("instance", cls), label)]
            return [(("elems", cls), label)] if method in _SELF_METHODS else [(OPAQUE, label)]
        if kind == "wrapper":  # what the wrapped definition returns (the wrapper returns its call)
            _, inner_kind, inner = name.split(SEP, 2)
            return self.call_result((inner_kind, inner), label, depth + 1, args, scope, line)
        if kind == "external":
            positional = [a for a in args or () if not a.name]
            index = _PASS_THROUGH.get(name)
            if index is not None and len(positional) > index:
                return self.chain(positional[index].chain, scope, depth + 1, line)
            return [(EXTERNAL_OBJECT, label)]
        if kind == "prop":
            return [(OPAQUE, label)]
        if kind in ("unknown", "param"):
            return [(UNKNOWN, label)]
        return [(OPAQUE, label)]

    def results(self, function: str, what: str, depth: int) -> Resolved:
        """What a function returns (`returns`: a generator function gives a generator) or yields (`yields`)."""
        key = (function, what)
        cached = self.index.results.get(key)
        if cached is not None:
            return cached
        _info, scope = self.scope(function)
        if scope is None or scope.kind != "function":
            return []
        if what == "returns" and scope.yields:
            return [(("generator", function), "inferred")]
        if not self.guarded(("results", key), depth):
            return []
        token, out = self.begin(), []
        self.push(("results", key))
        try:
            if what == "returns":
                if scope.return_type:
                    for v, r in self.chain(scope.return_type, function, depth + 1):
                        out.append(((("instance", v[1]) if v[0] == "class" else OPAQUE), r))
                # `-> bool` and the like: the annotation says it all (facts.SCALARS), the statements are not read
                for i, ret in enumerate(() if returns_scalar(scope) else scope.returns):
                    args = scope.return_args[i] if i < len(scope.return_args) else ()
                    if args and ret[-1] == "()":
                        for v, r in self.chain(ret[:-1], function, depth + 1):
                            out.extend(self.call_result(v, r, depth + 1, args, function))
                    else:
                        out.extend(self.chain(ret, function, depth + 1))
            else:
                for chain in scope.yields:
                    out.extend(self.chain(chain, function, depth + 1))
        finally:
            self.active.pop(("results", key), None)
        out = [(v, weaker(r, "inferred")) for v, r in dedupe(out) if v[0] not in ("unknown", "opaque") or
               v == EXTERNAL_OBJECT]
        if self.done(token):
            self.index.results[key] = out
        return out

    def substitute(self, function: str, values: Resolved, args: tuple[Arg, ...], scope: str, line: int,
                   depth: int) -> Resolved:
        """`values` (a function's results) with the symbolic values of its own parameters replaced by the values of
        the matching arguments of one call (the segments after the parameter applied to them)."""
        _info, fscope = self.scope(function)
        if fscope is None:
            return values
        bound = fscope.method in ("", "class") and self.is_method(function)
        passed: dict[str, list[tuple[Chain, str]]] = {}
        for param, arg, select, _key in bind_args(fscope.params, args, bound):
            passed.setdefault(param.name, []).append((arg.chain, select))
        prefix = function + "#"
        out: Resolved = []
        for value, label in values:
            if value[0] != "param" or not value[1].startswith(prefix):
                out.append((value, label))
                continue
            pname, *segments = value[1][len(prefix):].split(SEP)
            if pname not in passed:
                out.append((value, label))
                continue
            current: Resolved = []
            for chain, select in passed[pname]:
                got = self.chain(chain, scope, depth + 1, line) if scope else []
                key = repr(select[3:]) if select.startswith("**:") else ""
                current += got if not select else [r for v, lab in got for r in self.item_of(v, lab, key, depth + 1)]
            for segment in segments:
                current = dedupe([r for v, lab in current for r in self.step(v, lab, segment, depth + 1)])
            out.extend((v, weaker(r, label)) for v, r in current)
        return dedupe(out)

    def overloaded(self, function: str, values: Resolved, args: tuple[Arg, ...] | None, scope: str, line: int,
                   depth: int) -> Resolved:
        """What a call of `function` with `args` returns (`values`, from its implementation) narrowed by the
        function's `@overload` stubs, as a type checker reads them: the first stub whose parameters fit the
        arguments declares the result (with the stubs before it that may fit, when an argument's type is not known;
        every stub when the arguments are not known, as in `load(x).run()`). A declared class keeps the instances
        of it (or of subclasses) among `values`, else gives one; a declared `Callable` keeps what can be called as
        a function. When no stub fits, or one declares what kg cannot read (`Any`, a TypeVar), the implementation
        decides. `@click.command()` returns the decorator, not the Command its `@overload def command(name:
        Callable) -> Command` stub declares for `@click.command`."""
        _info, fscope = self.scope(function)
        if fscope is None or not fscope.overloads:
            return values
        bound = fscope.method in ("", "class") and self.is_method(function)
        declared: list[Chain] = []
        for stub in fscope.overloads:
            fit = self.fits(stub.params, args, bound, function, scope, line, depth)
            if fit is not False:
                declared.append(stub.return_type)
            if fit is True:
                break
        classes: list[str] = []
        callable_ = False
        for chain in declared:
            kind = self.annotation_kind(chain, function, depth)
            if kind == "":
                return values
            if kind == "callable":
                callable_ = True
            else:
                classes.append(kind)
        if not declared:
            return values
        kept = [(v, r) for v, r in values if (callable_ and v[0] in _CALLABLE_KINDS) or (
            v[0] == "instance" and any(c in self.mro(v[1], depth + 1) for c in classes))]
        made = {c for v, _ in kept if v[0] == "instance" for c in classes if c in self.mro(v[1], depth + 1)}
        kept += [(("instance", c), "inferred") for c in classes if c not in made]
        return kept or values

    def fits(self, params: Sequence[Param], args: tuple[Arg, ...] | None, bound: bool, function: str, scope: str,
             line: int, depth: int) -> bool | None:
        """Whether a call's arguments fit a signature: True, False, or None when what is not known (the arguments,
        an argument's type) could tell. Counts and keyword names decide first; then the annotations kg can read: a
        builtin scalar (`str`, `Optional[str]`) takes no function, a `Callable` takes no string or container
        literal."""
        if args is None or any(a.name in ("*", "**") for a in args):
            return None
        params = list(params)
        if bound and params and params[0].kind in ("pos", "arg"):
            params = params[1:]
        positional = [p for p in params if p.kind in ("pos", "arg")]
        by_name = {p.name: p for p in params if p.kind in ("arg", "kw")}
        has_star, has_dstar = any(p.kind == "star" for p in params), any(p.kind == "dstar" for p in params)
        pairs: list[tuple[Param, Arg]] = []
        filled: set[str] = set()
        index = 0
        for arg in args:
            if not arg.name:
                if index < len(positional):
                    pairs.append((positional[index], arg))
                    filled.add(positional[index].name)
                elif not has_star:
                    return False
                index += 1
            elif arg.name in by_name and arg.name not in filled:
                pairs.append((by_name[arg.name], arg))
                filled.add(arg.name)
            elif arg.name in filled or not has_dstar:
                return False
        if any(p.kind in ("pos", "arg", "kw") and not p.default and p.name not in filled for p in params):
            return False
        verdict: bool | None = True
        for param, arg in pairs:
            accepts = self.accepts(param.annotation, arg.chain, function, scope, line, depth)
            if accepts is False:
                return False
            if accepts is None:
                verdict = None
        return verdict

    def accepts(self, annotation: Chain, arg: Chain, function: str, scope: str, line: int,
                depth: int) -> bool | None:
        """Whether a parameter annotated `annotation` takes the argument `arg`, when kg can tell."""
        if not annotation or annotation[-1] in ("Any", "object"):
            return True
        literal = len(arg) == 1 and arg[0] in _LITERAL_TYPES
        definition = arg[0].startswith(("=", "<lambda"))
        if len(annotation) == 1 and annotation[0] in SCALARS:
            if definition:
                return False
            if literal:
                return _LITERAL_TYPES[arg[0]] == annotation[0]
            values = self.chain(arg, scope, depth + 1, line) if scope else []
            if values and all(v[0] in ("func", "class", "wrapper") for v, _ in values):
                return False
            return None
        if self.annotation_kind(annotation, function, depth) == "callable":
            return False if literal else True if definition else None
        return None

    def annotation_kind(self, chain: Chain, function: str, depth: int) -> str:
        """What an annotation read in `function`'s module declares: a project class (its qname), "callable"
        (`Callable[...]`, also through an alias `F = Callable[..., Any]`), or "" (what kg does not follow)."""
        for _ in range(3):
            if not chain:
                return ""
            found = self.chain(chain, function, depth + 1)
            if any(v[0] == "external" and v[1].rsplit(".", 1)[-1] == "Callable" and v[1].split(".", 1)[0] in (
                    "typing", "collections", "typing_extensions") for v, _ in found):
                return "callable"
            classes = {v[1] for v, _ in found if v[0] == "class"}
            if len(classes) == 1 and len(found) == 1:
                return classes.pop()
            # a module-level alias of a subscripted type (`_AnyCallable = t.Callable[..., t.Any]`): its head
            info, _scope = self.scope(function)
            entries = info.names.get(info.parsed.module, {}).get(chain[0], ()) if len(chain) == 1 else ()
            aliases = [e for e in entries if isinstance(e, Binding) and e.kind == "alias"]
            if len(aliases) != 1 or len(entries) != 1:
                return ""
            chain = tuple(s for s in aliases[0].chain if not is_subscript(s))
        return ""

    def is_method(self, function: str) -> bool:
        info, scope = self.scope(function)
        parent = info.scopes.get(scope.parent) if scope is not None else None
        return parent is not None and parent.kind == "class"

    def bmethod_result(self, name: str, label: str, depth: int) -> Resolved:
        method, _, container = name.partition(SEP)
        type_, _, attr = method.partition(".")
        if container:
            if attr in _ELEMENT_METHODS:
                return self.elements(container, "", depth + 1, label)
            if attr in _SELF_METHODS:
                return [(("container", container), label)]
            if attr == "items":
                return [(("pairs", container), label)]
        if type_ == "str":
            return [(("bi", _STR_RESULTS.get(attr, "str")), label)]
        if type_ == "bytes" and attr == "decode":
            return [(("bi", "str"), label)]
        return [(OPAQUE, label)]

    # -- containers, iteration, with
    def elements(self, container: str, key: str, depth: int, label: str = "inferred", before: int = 0) -> Resolved:
        """Elements of a container stored at `key` ("" for any): literal elements and everything stored into it.
        With `before` (a line of the scope holding the container) and a key: what that line sees, as for names (an
        unconditional store at the key hides what was stored there earlier). A container nested in a variable's
        (`holder\\0var\\0level`) holds what was stored one level deeper (see facts.Binding, kind item); a level
        with deeper stores has such a nested container among its elements."""
        holder, _, rest = container.partition(SEP)
        var, _, level_text = rest.partition(SEP)
        level = int(level_text or 0)
        info, scope = self.scope(holder)
        if scope is None:
            return []
        entries = info.items(holder, var) if scope.kind != "class" else [
            b for b in info.attrs.get(holder, {}).get(var, ()) if b.kind == "item"] + info.items(holder, var)
        nested = any(len(e.key) - len(e.key.lstrip("*")) > level for e in entries)
        prefix = "*" * level
        entries = sorted((e for e in entries if e.key.startswith(prefix) and not e.key[level:].startswith("*") and (
            not key or e.key == prefix or e.key == prefix + key)), key=lambda e: e.line)
        key = prefix + key if key else key
        start, stop = 0, len(entries)
        if before and key and scope.kind != "class":
            stop = sum(1 for e in entries if e.line < before) or stop
            start = next((i for i in range(stop - 1, -1, -1) if entries[i].key == key and not entries[i].cond), 0)
        memo = (container, key, start, stop)
        found = self.index.elements.get(memo)
        if found is None:
            if not self.guarded(("elements", memo), depth):
                return []
            token = self.begin()
            self.push(("elements", memo))
            try:
                out: Resolved = []
                for item in entries[start:stop]:
                    out.extend(self.chain(item.chain, item.scope or holder, depth + 1, item.line))
                if nested:
                    out.append((("container", f"{holder}{SEP}{var}{SEP}{level + 1}"), "inferred"))
                found = dedupe(out)
            finally:
                self.active.pop(("elements", memo), None)
            if self.done(token):
                self.index.elements[memo] = found
        return [(v, weaker(r, label)) for v, r in found]

    def container_type(self, container: str) -> str:
        holder, _, var = container.partition(SEP)
        if SEP in var:  # a nested container: of a type kg does not know
            return ""
        info, scope = self.scope(holder)
        if scope is None:
            return ""
        entries = info.names.get(holder, {}).get(var, ()) if scope.kind != "class" else [
            *info.names.get(holder, {}).get(var, ()), *info.attrs.get(holder, {}).get(var, ())]
        for entry in entries:
            if isinstance(entry, Binding) and entry.kind == "alias" and entry.chain[0] in _LITERAL_TYPES:
                return _LITERAL_TYPES[entry.chain[0]]
        return ""

    def item_of(self, value: Value, label: str, key: str, depth: int) -> Resolved:
        """`value[key]` (key "" when unknown)."""
        kind, name = value
        if kind == "container":
            return self.elements(name, key, depth, label)
        if kind == "elems":
            return [(("instance", name), label)]
        if kind == "pair":
            return self.elements(name, "", depth, label) if key in ("1", "") else [(OPAQUE, label)]
        if kind == "instance":
            found = self.member(value, label, "__getitem__", depth)
            return [r for v, lab in found if v[0] == "func" for r in self.call_result(v, lab, depth + 1)]
        if kind == "class":  # `Generic[int]`: still the class
            return [(value, label)]
        if kind == "unknown":
            return [(UNKNOWN, label)]
        return [(OPAQUE, label)]

    def iterate(self, value: Value, label: str, depth: int) -> Resolved:
        """An element got by iterating `value`."""
        kind, name = value
        if kind in ("container", "elems"):
            return self.item_of(value, label, "", depth)
        if kind == "pairs":
            return [(("pair", name), label)]
        if kind == "generator":
            return [(v, weaker(r, label)) for v, r in self.results(name, "yields", depth)]
        if kind == "instance":
            out: Resolved = []
            for it, lab in self.member(value, label, "__iter__", depth):
                if it[0] != "func":
                    continue
                for obj, lab2 in self.call_result(it, lab, depth + 1):
                    if obj[0] == "generator":
                        out += self.iterate(obj, lab2, depth + 1)
                    elif obj[0] == "instance":
                        for nxt, lab3 in self.member(obj, lab2, "__next__", depth + 1):
                            if nxt[0] == "func":
                                out += self.call_result(nxt, lab3, depth + 1)
            return out
        if kind == "class":  # an Enum class: its members
            return [(("instance", name), label)]
        if kind == "bi" and name == "str":
            return [(value, label)]
        if kind == "unknown":
            return [(UNKNOWN, label)]
        return [(OPAQUE, label)]

    def enter(self, value: Value, label: str, depth: int) -> Resolved:
        """What `with value as x` binds to x."""
        kind, name = value
        if kind == "instance":
            found = self.member(value, label, "__enter__", depth)
            return [r for v, lab in found if v[0] == "func" for r in self.call_result(v, lab, depth + 1)]
        if kind == "generator":  # a @contextmanager generator: what it yields
            return [(v, weaker(r, label)) for v, r in self.results(name, "yields", depth)]
        if kind == "unknown":
            return [(UNKNOWN, label)]
        return [(OPAQUE, label)]

    # -- pytest fixtures
    def fixture_value(self, name: str, func_qname: str, depth: int) -> Resolved:
        """What pytest passes as parameter `name` of test or fixture `func_qname`; [] when no fixture is known."""
        found = self.fixtures_for(name, func_qname, depth)
        out: Resolved = []
        for fixture in found:
            out.extend(self.fixture_result(fixture, depth + 1))
        return (dedupe(out) or [(UNKNOWN, "inferred")]) if found else []

    def fixtures_for(self, name: str, func_qname: str, depth: int) -> list[str]:
        """The fixtures pytest may use for parameter `name` of test or fixture `func_qname`: the closest ones of
        that name (enclosing class, module, then `conftest` of the package and of each parent package)."""
        info, scope = self.scope(func_qname)
        if scope is None or scope.kind != "function" or not self.requests_fixtures(info, scope, depth):
            return []
        module = info.parsed.module
        holders = [(info, scope.parent)] if scope.parent != module else []
        holders.append((info, module))
        package = module.split(".") if info.parsed.data.is_package else module.split(".")[:-1]
        for i in range(len(package), -1, -1):
            conftest = ".".join([*package[:i], "conftest"])
            conftest_info = self.index.info(conftest) if conftest != module else None
            if conftest_info is not None:
                holders.append((conftest_info, conftest))
        for holder_info, holder in holders:
            found = [q for q in self.fixtures_in(holder_info, holder, name, depth) if q != func_qname]
            if found:  # the closest definition wins (a fixture overriding one of its own name asks for the outer one)
                return found
        return []

    def requests_fixtures(self, info: ModuleInfo, scope: Scope, depth: int) -> bool:
        """Whether pytest fills the parameters of `scope`: a fixture, or a `test*` function of a module or class."""
        if scope.fixture:
            return self.is_fixture(info, scope, depth)
        parent = info.scopes.get(scope.parent)
        return parent is not None and is_test(info.parsed.module, scope.qname, parent.kind)

    def is_fixture(self, info: ModuleInfo, scope: Scope, depth: int) -> bool:
        """The decorator `parse` took for a fixture is pytest's (`pytest.fixture`, `from pytest import fixture`)."""
        for (kind, name), _ in self.chain(scope.fixture_decorator, scope.parent or info.parsed.module, depth + 1):
            if kind == "external" and name.split(".")[0] in _PYTEST_MODULES and name.endswith(".fixture"):
                return True
        return False

    def fixtures_in(self, info: ModuleInfo, holder: str, name: str, depth: int) -> list[str]:
        """Qnames of the fixtures requested as `name` defined in `holder` (a module or class), or imported into it."""
        found = [q for q in info.fixtures.get((holder, name), ()) if self.is_fixture(info, info.scopes[q], depth)]
        if found or holder != info.parsed.module:
            return found
        imports = [e for e in info.names.get(holder, {}).get(name, ()) if isinstance(e, Import)]
        if not imports:
            return []
        for (kind, qname), _ in self.bound(info, holder, name, imports, depth + 1):
            target = self.scope(qname) if kind == "func" else None
            if target is not None and target[1] is not None and target[1].fixture == name:
                if self.is_fixture(target[0], target[1], depth):
                    found.append(qname)
        return found

    def fixture_result(self, fixture: str, depth: int) -> Resolved:
        """The value of a fixture: what it yields for a generator fixture, else what it returns."""
        _info, scope = self.scope(fixture)
        if scope is not None and scope.yields:
            return self.results(fixture, "yields", depth)
        return [(v, r) for v, r in self.call_result(("func", fixture), "inferred", depth) if v[0] != "unknown"]

    # -- classes
    def enclosing_class(self, scope_qname: str) -> str:
        info, scope = self.scope(scope_qname)
        while scope is not None and scope.kind == "function":
            parent = info.scopes.get(scope.parent)
            if parent is not None and parent.kind == "class":
                return parent.qname
            scope = parent
        return ""

    def bases(self, cls: str, depth: int) -> list[str]:
        """Base classes of `cls` as qnames; a builtin base as `<builtin>name`, any other one from outside the project
        as `<external>...` (object is dropped)."""
        info, scope = self.scope(cls)
        if scope is None or scope.kind != "class":
            return []
        out: list[str] = []
        for chain, _base_line in scope.bases:
            if chain == ("object",):
                continue
            values = self.chain(chain, scope.parent or info.parsed.module, depth + 1)
            classes = [v[1] for v, _ in values if v[0] == "class"]
            builtin = [v[1] for v, _ in values if v[0] == "builtin" and v[1] in BUILTIN_TYPES]
            if classes:
                out.append(classes[0])
            elif builtin:
                out.append(f"<builtin>{builtin[0]}")
            else:
                out.append(f"<external>{cls}.{len(out)}")
        return out

    def mro(self, cls: str, depth: int = 0) -> list[str]:
        cached = self.index.mros.get(cls)
        if cached is not None:
            return cached
        if not self.guarded(("mro", cls), depth):
            return [cls]
        token = self.begin()
        self.push(("mro", cls))
        try:
            bases = self.bases(cls, depth)
            linear = [[b] if b.startswith("<") else self.mro(b, depth + 1) for b in bases]
            result = _c3([cls], [*linear, list(bases)]) or _dfs([cls], linear)
        finally:
            self.active.pop(("mro", cls), None)
        if self.done(token):
            self.index.mros[cls] = result
        return result

    def member(self, value: Value, label: str, attr: str, depth: int,
               accessors: list[str] | None = None) -> Resolved:
        """`attr` looked up on a class, an instance or `super()` along the MRO, labelled by how it was found. A
        property read on an instance gives what its getter returns, a descriptor what its `__get__` returns, an
        attribute the class does not have what its `__getattr__` returns; all are appended to `accessors`."""
        kind, cls = value
        owner, found = self.find_member(kind, cls, attr, depth)
        if owner is None and not found and kind == "instance" and attr != "__getattr__":
            fallback = [v for v, _ in self.find_member(kind, cls, "__getattr__", depth + 1)[1] if v[0] == "func"]
            if fallback:
                if accessors is not None:
                    accessors.extend(v[1] for v in fallback)
                return [r for v in fallback for r in self.call_result(v, label, depth + 1)]
        if owner is None:
            if kind == "super" or found:
                return [(OPAQUE, label)]
            # not on the class nor its project ancestors: a base from outside may have it, or a subclass the object
            # may be of; `name_only` guesses are made among the subclasses only (see edges.unknown_edges)
            return [(("unknown", f"{attr}{SEP}{cls}"), label)]
        if kind == "super":
            step_label = "super"
        elif label == "self" and owner != cls:
            step_label = "inherited"
        else:
            step_label = label
        out: Resolved = []
        for v, r in found:
            r = step_label if r == "local" else weaker(r, step_label)
            if v[0] == "prop":
                if kind == "class":  # the property object itself
                    out.append((OPAQUE, r))
                    continue
                if accessors is not None:
                    accessors.append(v[1])
                out.extend(self.call_result(("func", v[1]), r, depth + 1))
            elif v[0] == "instance" and kind != "super" and self.is_class_level(owner, attr):
                getter = self.find_member("instance", v[1], "__get__", depth + 1)
                funcs = [g for g, _ in getter[1] if g[0] == "func"] if getter[0] is not None else []
                if funcs:
                    if accessors is not None:
                        accessors.extend(g[1] for g in funcs)
                    for g in funcs:
                        out.extend(self.call_result(g, r, depth + 1))
                else:
                    out.append((v, r))
            else:
                out.append((v, r))
        return out

    def super_member(self, cls: str, after: str, attr: str, depth: int) -> Resolved:
        """`attr` as `super()` in class `after` finds it for an object of class `cls` (a subclass of `after`)."""
        mro = self.mro(cls, depth)
        positions = self.index.mro_positions.get(cls)
        if positions is None:  # where each class first stands (as list.index), kept with a memoised MRO
            positions = {c: i for i, c in reversed(list(enumerate(mro)))}
            if self.index.mros.get(cls) is mro:
                self.index.mro_positions[cls] = positions
        if after not in positions:
            return []
        for k in range(positions[after] + 1, len(mro)):
            owner = mro[k]
            if owner.startswith("<"):
                if attr in _OBJECT_ATTRS or owner.startswith("<builtin>"):
                    return []
                continue
            info, scope = self.scope(owner)
            entries = info.names.get(owner, {}).get(attr) if scope is not None else None
            if entries:
                return self.bound(info, owner, attr, entries, depth + 1)
        return []

    def store_accessors(self, value: Value, attr: str, depth: int) -> list[str]:
        """What writing `attr` on `value` runs: a property's setter (the property's qname), a descriptor's `__set__`,
        else the class's `__setattr__`."""
        if value[0] != "instance":
            return []
        owner, found = self.find_member("instance", value[1], attr, depth)
        out: list[str] = []
        for v, _ in found if owner is not None else ():
            if v[0] == "prop":
                out.append(v[1])
            elif v[0] == "instance" and self.is_class_level(owner, attr):
                setter = self.find_member("instance", v[1], "__set__", depth + 1)
                out += [s[1] for s, _ in setter[1] if s[0] == "func"] if setter[0] is not None else []
        if not out:
            setattr_ = self.find_member("instance", value[1], "__setattr__", depth + 1)
            out += [s[1] for s, _ in setattr_[1] if s[0] == "func"] if setattr_[0] is not None else []
        return out

    def is_class_level(self, owner: str, attr: str) -> bool:
        info, scope = self.scope(owner)
        return scope is not None and attr in info.names.get(owner, {})

    def find_member(self, kind: str, cls: str, attr: str, depth: int) -> tuple[str | None, Resolved]:
        """(owning class, raw values) of `attr`; (None, [opaque]) when a base from outside may define it."""
        key = (kind, cls, attr)
        cached = self.index.members.get(key)
        if cached is not None:
            return cached
        token = self.begin()
        mro = self.mro(cls, depth)
        result: tuple[str | None, Resolved] = (None, [])
        containers: Resolved = []
        for owner in mro[1:] if kind == "super" else mro:
            if owner.startswith("<builtin>"):
                type_ = owner[len("<builtin>"):]
                if attr in _OBJECT_ATTRS or hasattr(BUILTIN_TYPES.get(type_), attr):
                    result = (None, [(OPAQUE, "import")]) if attr.startswith("__") else (
                        owner, [(("builtin", f"{type_}.{attr}"), "import")])
                    break
                continue
            if owner.startswith("<external>"):
                if attr in _OBJECT_ATTRS:  # every class has it: the outside base may define it first
                    result = (None, [(OPAQUE, "import")])
                    break
                continue
            info, scope = self.scope(owner)
            if scope is None:
                continue
            entries = info.names.get(owner, {}).get(attr)
            attrs = info.attrs.get(owner, {}).get(attr) if kind == "instance" else None
            out: Resolved = []
            if entries:
                out.extend(self.bound(info, owner, attr, entries, depth + 1))
            if attrs:
                values = [b for b in attrs if b.kind != "item"]
                if values:
                    out.extend((v, weaker(r, "inferred"))
                               for v, r in self.bound(info, owner, f".{attr}", values, depth + 1))
                if len(values) < len(attrs):
                    containers.append((("container", f"{owner}{SEP}{attr}"), "inferred"))
            if out:
                result = (owner, out + containers)
                break
        if result[0] is None and containers:
            result = (mro[0], containers)
        if self.done(token):
            self.index.members[key] = result
        return result


def _c3(head: list[str], sequences: list[list[str]]) -> list[str] | None:
    """C3 linearization of `head` followed by the merge of `sequences` (None when they admit none). Each sequence
    is walked with a cursor and a count says how often a name stands behind a cursor, so a step costs the number
    of sequences, not their length: a class at the end of a 1,000-long chain merges in linear time."""
    result = list(head)
    seqs = [s for s in sequences if s]
    at = [0] * len(seqs)
    behind = Counter(x for s in seqs for x in s[1:])
    live = list(range(len(seqs)))
    while live:
        for i in live:
            candidate = seqs[i][at[i]]
            if not behind[candidate]:
                break
        else:
            return None
        result.append(candidate)
        for i in live:
            if seqs[i][at[i]] == candidate:
                at[i] += 1
                if at[i] < len(seqs[i]):
                    behind[seqs[i][at[i]]] -= 1
        live = [i for i in live if at[i] < len(seqs[i])]
    return result


def _dfs(head: list[str], linear: list[list[str]]) -> list[str]:
    result = list(head)
    for seq in linear:
        result.extend(x for x in seq if x not in result)
    return result


def bind_args(params: Sequence[Param], args: Sequence[Arg], bound: bool) -> list[tuple[Param, Arg, str, str]]:
    """Which argument reaches which parameter: (parameter, argument, select, key). `select` says how the parameter's
    value comes from the argument's: "" it is the value, "*" an element of it (`f(*xs)`), "**:name" its element
    at key `name` (`f(**kw)`), "**" its elements with their keys (`**kw` into `**kwargs`). `key` is the element key
    the value gets inside a `*args` / `**kwargs` parameter. `bound`: the first parameter is already filled (self).
    """
    params = list(params)
    if bound and params and params[0].kind in ("pos", "arg"):
        params = params[1:]
    positional = [p for p in params if p.kind in ("pos", "arg")]
    star = next((p for p in params if p.kind == "star"), None)
    dstar = next((p for p in params if p.kind == "dstar"), None)
    by_name = {p.name: p for p in params if p.kind in ("arg", "kw")}
    named = {a.name for a in args if a.name not in ("", "*", "**")}
    out: list[tuple[Param, Arg, str, str]] = []
    index = 0
    for arg in args:
        if not arg.name:
            if index < len(positional):
                out.append((positional[index], arg, "", ""))
            elif star is not None:
                out.append((star, arg, "", repr(index - len(positional))))
            index += 1
        elif arg.name == "*":
            out += [(p, arg, "*", "") for p in positional[index:]]
            if star is not None:
                out.append((star, arg, "*", ""))
        elif arg.name == "**":
            out += [(p, arg, f"**:{p.name}", "") for p in by_name.values() if p.name not in named and
                    p not in positional[:index]]
            if dstar is not None:
                out.append((dstar, arg, "**", ""))
        else:
            param = by_name.get(arg.name)
            if param is not None:
                out.append((param, arg, "", ""))
            elif dstar is not None:
                out.append((dstar, arg, "", repr(arg.name)))
    return out


def params_of(res: Resolver, function: str) -> tuple[Param, ...]:
    _info, scope = res.scope(function)
    return scope.params if scope is not None else ()
