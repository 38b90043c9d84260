"""Phase 2: resolution of the chains of facts.py against every parsed module of the project.

Resolution order of a name (LEGB): the current scope (a class body only sees its own bindings while it runs),
then enclosing function scopes, the module's globals (own definitions, assignments, imports, then `*` imports),
then builtins. A binding may be a definition, an import (followed through package re-exports, with a cycle
guard), an alias (`g = f`), a call result (`x = A()` → instance of A; `h = make()` → what `make` returns or its
return annotation; returning `self` gives the instance), an annotated type (`a: A`, `Optional[A]`, `"A"`,
parameters too), a property (reading it is calling its getter), a container of references (`[f, g]`, `{"k": f}`;
indexing it gives its elements), a literal (known, not ours: no guesses on it), a pytest fixture (below), or a
parameter / loop variable of unknown value (which still shadows outer names). When a name has several bindings
(if/else, try/except) every resolvable one counts.

pytest fixtures: an unannotated parameter without default (binding kind `param`) of a test (a `test*` function of a
module or class, in a module named `test*`, `*_test` or `*tests`) or of a fixture is the value of the closest
fixture of that name, searched in the enclosing class, the module (its own fixtures, then fixtures imported into
it), then `<package>.conftest` for the module's package and each parent package up to the root `conftest` (by module
name, so `tests.api.test_x` looks in `tests.api.conftest`, `tests.conftest`, `conftest`). A fixture is a module- or
class-level function decorated `@pytest.fixture`, `@pytest.fixture(...)` or `@fixture` where the decorator resolves
to pytest's (`pytest`, `_pytest`, `pytest_asyncio`); `name="x"` renames it. A fixture of the same name as the
requesting fixture is skipped (an override asking for the one it overrides). Its value: what it yields if it is a
generator (`parse` keeps every `yield` in `Scope.yields`, apart from `returns`, which stay what a plain call gives),
else what a call of it returns. pytest's own fixtures (`tmp_path`, `monkeypatch`...) are not modelled: such
parameters stay unknown.

Attributes: module → its global or submodule; class / instance → member found along the C3 MRO (falling back to
depth-first when C3 fails), then attributes assigned as `self.x = ...` in any method; `super()` and
`super(C, self)` → the MRO after the enclosing class (the explicit class argument is not read). A base class
outside the project stops the search: the attribute may come from it, so nothing is guessed.

Edges and their `resolution` (see ingest.facts.RESOLUTIONS):
- `local`: target defined in this module (enclosing scopes included). `import`: reached through an import.
- `self` / `inherited`: `self.m()` / `cls.m()` found in the class itself / in an ancestor. `super`: `super().m()`.
- `constructor`: calling a class → its `__init__` (own or inherited from a project class), else the class itself.
- `inferred` (confidence 1.0, or 0.5 for references): through a variable, an annotation, `self.attr`, a return
  value, a container, a pytest fixture; and functions passed as arguments (`map(f, xs)`, `callback=f`) get a 0.5
  edge to `f`. A test or fixture also gets a 1.0 edge to each fixture it requests (at the parameter's line): pytest
  calls it for the test, so what the fixture calls is reached from the test.
- `name_only`: a method called on an object of unknown type: one edge per project class defining that method,
  confidence min(0.5, 1/n), none when n > 8 or when lists, dicts, sets, str, bytes or tuples have a method of that
  name (`x.append()` on an unknown `x` is far likelier a list than one of our classes). A bare name bound
  nowhere gives one edge to the `unresolved` target `name` with confidence 0 (kept so dead-code analysis sees it).
- `dynamic` (0.2): `getattr`, `eval`, `exec`, `__import__`, `importlib.import_module`; plus, when the attribute
  or module name is a string literal that resolves, an edge to that target too.
- Builtins: target `<builtin>.name`, target_kind `builtin`, resolution `import`, confidence 1.0. Calls into code
  outside the repo: dotted external name (`os.path.join`), target_kind `external`, resolution `import`.
- IMPORTS edges always start at the module (even for imports inside functions); target is the module, the
  symbol it finally resolves to (re-exports followed), or the external dotted name. INHERITS: class → base.
- Calls at module level come from the module qname, in a class body from the class, in decorators and default
  arguments from the enclosing scope; calls in lambdas and comprehensions belong to the enclosing function.

Symbol lines span decorators (a decorated def starts at its first decorator). `dependencies` returns the direct
imports (and their packages) only, plus, for a module with tests or fixtures that request fixtures, the
`conftest` modules of its package and every parent package (pytest's lookup, not an import): transitive re-exports /
base classes, and the project-wide `name_only` index, are not included.
"""

from __future__ import annotations

import builtins
import copy
from collections.abc import Iterator, Mapping

from kg.ingest.facts import RESOLUTIONS, Edge, ParsedFile
from kg.ingest.languages.python.facts import Binding, Call, Chain, Import, PyModule, Scope, is_test

BUILTINS = frozenset(dir(builtins))
DYNAMIC_BUILTINS = frozenset({"getattr", "eval", "exec", "__import__"})
DYNAMIC_EXTERNALS = frozenset({"importlib.import_module"})
NAME_ONLY_MAX = 8
REF_CONFIDENCE = 0.5
DYNAMIC_CONFIDENCE = 0.2
MAX_DEPTH = 24
_RANK = {r: i for i, r in enumerate(RESOLUTIONS)}
BUILTIN_METHODS = frozenset(n for t in (list, dict, set, str, bytes, tuple) for n in dir(t) if not n.startswith("_"))
_PYTEST_MODULES = frozenset({"pytest", "_pytest", "pytest_asyncio"})  # whose `fixture` decorator makes fixtures


Value = tuple[str, str]  # (kind, name): func | class | module | instance | external | builtin | super
#                                        | unknown (nothing known, name hint) | opaque (known, but not ours)
Resolved = list[tuple[Value, str]]  # values with their resolution label

UNKNOWN: Value = ("unknown", "")
OPAQUE: Value = ("opaque", "")


def _weaker(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


class _ModuleInfo:
    """Dict views of one module's facts, built on first use."""

    def __init__(self, parsed: ParsedFile) -> None:
        data: PyModule = parsed.data
        self.parsed = parsed
        self.scopes: dict[str, Scope] = {}
        self.names: dict[str, dict[str, list[Binding | Import]]] = {}
        self.attrs: dict[str, dict[str, list[Binding]]] = {}
        self.stars: list[str] = []
        self.symbols = frozenset(s.qname for s in parsed.symbols)
        self.memo: dict[tuple[str, int], Resolved] = {}
        self.fixtures: dict[tuple[str, str], list[str]] = {}  # (module or class, requested name) → fixture qnames
        for scope in data.scopes:
            self.scopes.setdefault(scope.qname, scope)
            if scope.fixture:
                self.fixtures.setdefault((scope.parent, scope.fixture), []).append(scope.qname)
            table = self.names.setdefault(scope.qname, {})
            for b in scope.bindings:
                table.setdefault(b.name, []).append(b)
            attrs = self.attrs.setdefault(scope.qname, {})
            for b in scope.attrs:
                attrs.setdefault(b.name, []).append(b)
        for imp in data.imports:
            if imp.name == "*":
                if imp.scope == parsed.module:
                    self.stars.append(imp.module)
            elif imp.alias:
                self.names.setdefault(imp.scope, {}).setdefault(imp.alias, []).append(imp)

    def renewed(self) -> _ModuleInfo:
        """The same views for the next project: they depend on this module alone, but `memo` holds resolutions
        that read other modules, so it starts empty."""
        info = copy.copy(self)
        info.memo = {}
        return info


class _Index:
    """Per-project lookup tables, filled lazily."""

    def __init__(self, project: Mapping[str, ParsedFile], previous: _Index | None = None) -> None:
        self.project = project
        self.infos: dict[str, _ModuleInfo] = {}
        # After a change the pipeline hands over a new mapping that mostly holds the same parses: their views
        # are taken over from the previous index instead of rebuilt (0.5 s on django).
        self._previous_infos = previous.infos if previous is not None else {}
        self._packages: set[str] | None = None
        self._methods: dict[str, list[str]] | None = None
        self.module_attrs: dict[tuple[str, str], Resolved] = {}
        self.mros: dict[str, list[str]] = {}
        self.members: dict[tuple[str, str, str], tuple[str | None, Resolved]] = {}

    def info(self, module: str) -> _ModuleInfo | None:
        parsed = self.project.get(module)
        if parsed is None or not isinstance(parsed.data, PyModule):
            return None
        info = self.infos.get(module)
        if info is None or info.parsed is not parsed:
            earlier = self._previous_infos.get(module)
            info = earlier.renewed() if earlier is not None and earlier.parsed is parsed else _ModuleInfo(parsed)
            self.infos[module] = info
        return info

    def is_module(self, name: str) -> bool:
        if name in self.project:
            return True
        if self._packages is None:
            self._packages = {".".join(m.split(".")[:i]) for m in self.project for i in range(1, m.count(".") + 1)}
        return name in self._packages

    def module_of(self, qname: str) -> tuple[_ModuleInfo, Scope] | None:
        """The module info and scope that define `qname` (a class or function)."""
        parts = qname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            info = self.info(".".join(parts[:i]))
            if info is not None:
                scope = info.scopes.get(qname)
                return (info, scope) if scope is not None else None
        return None

    def classes_with_method(self, name: str) -> list[str]:
        if self._methods is None:
            self._methods = {}
            for module in self.project:
                info = self.info(module)
                if info is None:
                    continue
                for scope in info.scopes.values():
                    if scope.kind == "class":
                        for b in scope.bindings:
                            if b.kind == "func":
                                self._methods.setdefault(b.name, []).append(scope.qname)
        return self._methods.get(name, [])


_INDEXES: dict[int, tuple[Mapping[str, ParsedFile], _Index]] = {}


def _index_for(project: Mapping[str, ParsedFile]) -> _Index:
    entry = _INDEXES.get(id(project))
    if entry is not None and entry[0] is project:
        return entry[1]
    if len(_INDEXES) >= 4:
        _INDEXES.pop(next(iter(_INDEXES)))
    latest = next(reversed(_INDEXES.values()))[1] if _INDEXES else None
    index = _Index(project, previous=latest)
    if latest is not None:
        latest._previous_infos = {}  # keep one generation only, so old parses are not held forever
    _INDEXES[id(project)] = (project, index)  # holding the mapping keeps its id from being reused
    return index


class _Resolver:
    """Evaluates chains for one file."""

    def __init__(self, parsed: ParsedFile, index: _Index) -> None:
        self.parsed, self.index = parsed, index
        self.module = parsed.module
        self.info = index.info(parsed.module) or _ModuleInfo(parsed)
        self.active: set[tuple] = set()  # cycle guard
        self.cut = 0  # how many lookups a cycle or the depth limit cut short (their callers are not memoized)

    # -- names
    def lookup(self, name: str, scope_qname: str, depth: int = 0) -> Resolved:
        """LEGB lookup of a bare name from `scope_qname` (a scope of any project module)."""
        info, scope = self.scope(scope_qname)
        first = True
        while scope is not None:
            if scope.kind != "class" or first:
                table = info.names.get(scope.qname, {})
                if name in table:
                    return self.bound(info, scope.qname, table[name], depth)
            if scope.kind == "module" or not scope.parent:
                break
            first = False
            scope = info.scopes.get(scope.parent)
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

    def scope(self, qname: str) -> tuple[_ModuleInfo, Scope | None]:
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

    def global_name(self, module: str, name: str, depth: int) -> Resolved:
        info = self.index.info(module)
        if info is None:
            return []
        table = info.names.get(module, {})
        if name in table:
            return self.bound(info, module, table[name], depth)
        return self.star_name(info, name, depth)

    def star_name(self, info: _ModuleInfo, name: str, depth: int) -> Resolved:
        for star in info.stars:
            if self.index.info(star) is not None:
                found = self.module_attr(star, name, depth + 1, submodules=False)
                if found:
                    return found
            elif not self.index.is_module(star):
                return [(OPAQUE, "import")]  # `from external import *` may define it
        return []

    def bound(self, info: _ModuleInfo, scope_qname: str, entries: list[Binding | Import], depth: int) -> Resolved:
        """Values of a name's bindings in one scope (memoized on the module info unless a cycle cut it short)."""
        key = (scope_qname, id(entries))
        cached = info.memo.get(key)
        if cached is not None:
            return cached
        active_key = ("bound", info.parsed.module, *key)
        if active_key in self.active or depth > MAX_DEPTH:
            self.cut += 1
            return []
        cut, out = self.cut, []
        self.active.add(active_key)
        try:
            for entry in entries:
                if isinstance(entry, Import):
                    out.extend(self.imported(entry, depth))
                else:
                    out.extend(self.binding(entry, entry.scope or scope_qname, depth))
        finally:
            self.active.discard(active_key)
        out = _dedupe(out)
        if self.cut == cut:
            info.memo[key] = out
        return out

    def imported(self, imp: Import, depth: int) -> Resolved:
        if imp.name:
            return self.module_attr(imp.module, imp.name, depth + 1)
        if self.index.is_module(imp.module):
            return [(("module", imp.module), "import")]
        return [(("external", imp.module), "import")]

    def binding(self, b: Binding, scope_qname: str, depth: int) -> Resolved:
        if b.kind in ("func", "class"):
            return [((b.kind, b.chain[0]), "local")]
        if b.kind == "prop":  # reading a property is calling its getter
            return self.call_result(("func", b.chain[0]), "local", depth + 1)
        if b.kind == "self":
            return [(("instance", b.chain[0]), "self")]
        if b.kind == "cls":
            return [(("class", b.chain[0]), "self")]
        if b.kind == "alias" or b.kind == "item":
            return [(v, _weaker(r, "inferred")) for v, r in self.chain(b.chain, scope_qname, depth + 1)]
        if b.kind == "call":
            return [(v, _weaker(r, "inferred")) for v, r in self.chain((*b.chain, "()"), scope_qname, depth + 1)]
        if b.kind == "param":
            return self.fixture_value(b.name, scope_qname, depth + 1) or [(UNKNOWN, "inferred")]
        if b.kind == "type":
            out: Resolved = []
            for v, r in self.chain(b.chain, scope_qname, depth + 1):
                out.append(((("instance", v[1]) if v[0] == "class" else OPAQUE), _weaker(r, "inferred")))
            return out
        return [(UNKNOWN, "inferred")]

    def module_attr(self, module: str, attr: str, depth: int, submodules: bool = True) -> Resolved:
        """`module.attr`, following re-exports; submodule fallback; external when outside the project."""
        key = (module, attr)
        cached = self.index.module_attrs.get(key)
        if cached is not None:
            return cached
        if ("attr", key) in self.active or depth > MAX_DEPTH:
            self.cut += 1
            return []
        cut = self.cut
        self.active.add(("attr", key))
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
            self.active.discard(("attr", key))
        if submodules and self.cut == cut:
            self.index.module_attrs[key] = found
        return found

    # -- chains
    def chain(self, chain: Chain, scope_qname: str, depth: int = 0) -> Resolved:
        if not chain or depth > MAX_DEPTH:
            return []
        root = chain[0]
        if root in ("?", "<lit>"):
            current: Resolved = [(UNKNOWN if root == "?" else OPAQUE, "inferred")]
            rest = chain[1:]
        elif root == "super" and chain[1:2] == ("()",):
            cls = self.enclosing_class(scope_qname)
            current = [(("super", cls), "super")] if cls else [(OPAQUE, "super")]
            rest = chain[2:]
        else:
            current = self.lookup(root, scope_qname, depth) or [(("unknown", root), "name_only")]
            rest = chain[1:]
        for segment in rest:
            nxt: Resolved = []
            for value, label in current:
                nxt.extend(self.step(value, label, segment, depth + 1))
            current = _dedupe(nxt)
            if not current:
                break
        return current

    def step(self, value: Value, label: str, segment: str, depth: int) -> Resolved:
        kind, name = value
        if segment == "()":
            return self.call_result(value, label, depth)
        if segment == "[]":
            if kind in ("func", "class"):  # an element of a container of functions / classes
                return [(value, label)]
            return [(UNKNOWN if kind == "unknown" else OPAQUE, label)]
        if kind == "module":
            return [(v, _weaker(r, label)) for v, r in self.module_attr(name, segment, depth)]
        if kind == "external":
            return [(("external", f"{name}.{segment}"), label)]
        if kind in ("class", "instance", "super"):
            return self.member(value, label, segment, depth)
        if kind == "unknown":
            return [(("unknown", segment), label)]
        if kind == "func" and segment and self.is_wrapped(name):
            # `@click.command() def cli(): ...` then `cli.main()`: the decorator made `cli` some object, of a type
            # kg cannot see; its methods get the same candidates as any object of unknown type.
            return [(("unknown", segment), label)]
        return [(OPAQUE, label)]

    def is_wrapped(self, qname: str) -> bool:
        _info, scope = self.scope(qname)
        return scope is not None and scope.wrapped

    def call_result(self, value: Value, label: str, depth: int) -> Resolved:
        kind, name = value
        label = _weaker(label, "inferred")
        if kind == "class":
            return [(("instance", name), label)]
        if kind == "func":
            _info, scope = self.scope(name)
            if scope is None:
                return [(UNKNOWN, label)]
            out: Resolved = []
            if scope.return_type:
                for v, r in self.chain(scope.return_type, name, depth + 1):
                    out.append(((("instance", v[1]) if v[0] == "class" else OPAQUE), _weaker(r, label)))
            for ret in scope.returns:
                for v, r in self.chain(ret, name, depth + 1):
                    if v[0] in ("func", "class", "instance"):
                        out.append((v, _weaker(r, label)))
            return out or [(UNKNOWN, label)]
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
        return (_dedupe(out) or [(UNKNOWN, "inferred")]) if found else []

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

    def requests_fixtures(self, info: _ModuleInfo, scope: Scope, depth: int) -> bool:
        """Whether pytest fills the parameters of `scope`: a fixture, or a `test*` function of a module or class."""
        if scope.fixture:
            return self.is_fixture(info, scope, depth)
        parent = info.scopes.get(scope.parent)
        return parent is not None and is_test(info.parsed.module, scope.qname, parent.kind)

    def is_fixture(self, info: _ModuleInfo, scope: Scope, depth: int) -> bool:
        """The decorator `parse` took for a fixture is pytest's (`pytest.fixture`, `from pytest import fixture`)."""
        for (kind, name), _ in self.chain(scope.fixture_decorator, scope.parent or info.parsed.module, depth + 1):
            if kind == "external" and name.split(".")[0] in _PYTEST_MODULES and name.endswith(".fixture"):
                return True
        return False

    def fixtures_in(self, info: _ModuleInfo, holder: str, name: str, depth: int) -> list[str]:
        """Qnames of the fixtures requested as `name` defined in `holder` (a module or class), or imported into it."""
        found = [q for q in info.fixtures.get((holder, name), ()) if self.is_fixture(info, info.scopes[q], depth)]
        if found or holder != info.parsed.module:
            return found
        imports = [e for e in info.names.get(holder, {}).get(name, ()) if isinstance(e, Import)]
        if not imports:
            return []
        for (kind, qname), _ in self.bound(info, holder, imports, depth + 1):
            target = self.scope(qname) if kind == "func" else None
            if target is not None and target[1] is not None and target[1].fixture == name:
                if self.is_fixture(target[0], target[1], depth):
                    found.append(qname)
        return found

    def fixture_result(self, fixture: str, depth: int) -> Resolved:
        """The value of a fixture: what it yields for a generator fixture, else what it returns."""
        _info, scope = self.scope(fixture)
        if scope is None or not scope.yields:
            return self.call_result(("func", fixture), "inferred", depth)
        out: Resolved = []
        for chain in scope.yields:
            for v, r in self.chain(chain, fixture, depth + 1):
                if v[0] in ("func", "class", "instance"):
                    out.append((v, _weaker(r, "inferred")))
        return out

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
        """Base classes of `cls` as qnames; external/builtin bases as "<external>" (object is dropped)."""
        info, scope = self.scope(cls)
        if scope is None or scope.kind != "class":
            return []
        out: list[str] = []
        for chain, _base_line in scope.bases:
            values = self.chain(chain, scope.parent or info.parsed.module, depth + 1)
            classes = [v[1] for v, _ in values if v[0] == "class"]
            if classes:
                out.append(classes[0])
            elif chain != ("object",):
                out.append(f"<external>{cls}.{len(out)}")
        return out

    def mro(self, cls: str, depth: int = 0) -> list[str]:
        cached = self.index.mros.get(cls)
        if cached is not None:
            return cached
        if ("mro", cls) in self.active or depth > MAX_DEPTH:
            self.cut += 1
            return [cls]
        cut = self.cut
        self.active.add(("mro", cls))
        try:
            bases = self.bases(cls, depth)
            linear = [[b] if b.startswith("<external>") else self.mro(b, depth + 1) for b in bases]
            result = _c3([cls], [*linear, list(bases)]) or _dfs([cls], linear)
        finally:
            self.active.discard(("mro", cls))
        if self.cut == cut:
            self.index.mros[cls] = result
        return result

    def member(self, value: Value, label: str, attr: str, depth: int) -> Resolved:
        """`attr` looked up on a class, an instance or `super()` along the MRO, labelled by how it was found."""
        kind, cls = value
        owner, found = self.find_member(kind, cls, attr, depth)
        if owner is None:
            return [(OPAQUE if kind == "super" or found else ("unknown", attr), label)]
        if kind == "super":
            step_label = "super"
        elif label == "self" and owner != cls:
            step_label = "inherited"
        else:
            step_label = label
        return [(v, step_label if r == "local" else _weaker(r, step_label)) for v, r in found]

    def find_member(self, kind: str, cls: str, attr: str, depth: int) -> tuple[str | None, Resolved]:
        """(owning class, raw values) of `attr`; (None, [opaque]) when an external base may define it."""
        key = (kind, cls, attr)
        cached = self.index.members.get(key)
        if cached is not None:
            return cached
        cut = self.cut
        mro = self.mro(cls, depth)
        result: tuple[str | None, Resolved] = (None, [])
        for owner in mro[1:] if kind == "super" else mro:
            if owner.startswith("<external>"):
                result = (None, [(OPAQUE, "import")])
                break
            info, scope = self.scope(owner)
            if scope is None:
                continue
            entries = info.names.get(owner, {}).get(attr)
            attrs = info.attrs.get(owner, {}).get(attr) if kind == "instance" else None
            out: Resolved = []
            if entries:
                out.extend(self.bound(info, owner, entries, depth + 1))
            if attrs:
                out.extend((v, _weaker(r, "inferred")) for v, r in self.bound(info, owner, attrs, depth + 1))
            if out:
                result = (owner, out)
                break
        if self.cut == cut:
            self.index.members[key] = result
        return result


def _dedupe(values: Resolved) -> Resolved:
    seen: dict[Value, str] = {}
    for v, r in values:
        if v not in seen or _RANK[r] < _RANK[seen[v]]:
            seen[v] = r
    known = [(v, r) for v, r in seen.items() if v[0] not in ("unknown", "opaque")]
    if known:
        return known
    return list(seen.items())


def _c3(head: list[str], sequences: list[list[str]]) -> list[str] | None:
    result = list(head)
    seqs = [list(s) for s in sequences if s]
    while seqs:
        for seq in seqs:
            candidate = seq[0]
            if not any(candidate in s[1:] for s in seqs):
                break
        else:
            return None
        result.append(candidate)
        seqs = [[x for x in s if x != candidate] for s in seqs]
        seqs = [s for s in seqs if s]
    return result


def _dfs(head: list[str], linear: list[list[str]]) -> list[str]:
    result = list(head)
    for seq in linear:
        result.extend(x for x in seq if x not in result)
    return result


# ------------------------------------------------------------------------------------------------- edge making


def _call_edges(res: _Resolver, call: Call) -> Iterator[Edge]:
    src, line = call.scope, call.line
    if call.kind == "fixture":  # pytest calls the fixture for the test
        for fixture in res.fixtures_for(call.chain[0], call.scope, 0):
            yield Edge("CALLS", src, fixture, "symbol", line, "inferred", 1.0)
        return
    values = res.chain(call.chain, call.scope)
    if call.kind == "ref":
        for (kind, name), _label in values:
            if kind == "func":
                yield Edge("CALLS", src, name, "symbol", line, "inferred", REF_CONFIDENCE)
        return
    for (kind, name), label in values:
        if kind == "func":
            yield Edge("CALLS", src, name, "symbol", line, label, 1.0)
        elif kind == "class":
            target = _constructor(res, name)
            resolution = "constructor" if label in ("local", "import", "self", "inherited", "super") else label
            yield Edge("CALLS", src, target, "symbol", line, resolution, 1.0)
        elif kind == "instance":
            found = res.member(("instance", name), label, "__call__", 0)
            for (k, target), r in found:
                if k == "func":
                    yield Edge("CALLS", src, target, "symbol", line, _weaker(r, "inferred"), 1.0)
        elif kind == "builtin":
            if name in DYNAMIC_BUILTINS:
                yield Edge("CALLS", src, f"<builtin>.{name}", "builtin", line, "dynamic", DYNAMIC_CONFIDENCE)
                yield from _dynamic_targets(res, call, name)
            else:
                yield Edge("CALLS", src, f"<builtin>.{name}", "builtin", line, "import", 1.0)
        elif kind == "external":
            if name in DYNAMIC_EXTERNALS:
                yield Edge("CALLS", src, name, "external", line, "dynamic", DYNAMIC_CONFIDENCE)
                yield from _dynamic_targets(res, call, name)
            else:
                yield Edge("CALLS", src, name, "external", line, label, 1.0)
        elif kind == "unknown":
            yield from _unknown_edges(res, call, name, label)


def _constructor(res: _Resolver, cls: str) -> str:
    found = res.member(("class", cls), "local", "__init__", 0)
    for (kind, target), _ in found:
        if kind == "func":
            return target
    return cls


def _unknown_edges(res: _Resolver, call: Call, name: str, label: str) -> Iterator[Edge]:
    if len(call.chain) == 1 and label == "name_only":  # a bare name bound nowhere
        yield Edge("CALLS", call.scope, call.chain[0], "unresolved", call.line, "name_only", 0.0)
        return
    attr = call.chain[-1]
    if len(call.chain) < 2 or attr in ("()", "[]") or name != attr or attr in BUILTIN_METHODS:
        return
    candidates = res.index.classes_with_method(attr)
    if not 0 < len(candidates) <= NAME_ONLY_MAX:
        return
    confidence = min(0.5, 1.0 / len(candidates))
    for cls in candidates:
        yield Edge("CALLS", call.scope, f"{cls}.{attr}", "symbol", call.line, "name_only", confidence)


def _dynamic_targets(res: _Resolver, call: Call, name: str) -> Iterator[Edge]:
    if not call.literal:
        return
    if name == "getattr" and call.obj:
        for (kind, target), _ in res.chain((*call.obj, call.literal), call.scope):
            if kind in ("func", "class"):
                yield Edge("CALLS", call.scope, target, "symbol", call.line, "dynamic", DYNAMIC_CONFIDENCE)
    elif name in ("__import__", "importlib.import_module") and res.index.is_module(call.literal):
        yield Edge("CALLS", call.scope, call.literal, "module", call.line, "dynamic", DYNAMIC_CONFIDENCE)


def _import_edges(res: _Resolver, imp: Import) -> Iterator[Edge]:
    src = res.module
    if not imp.edge:
        return
    if imp.name in ("", "*"):
        kind = "module" if res.index.is_module(imp.module) else "external"
        yield Edge("IMPORTS", src, imp.module, kind, imp.line, "import", 1.0)
        return
    if not res.index.is_module(imp.module):
        yield Edge("IMPORTS", src, f"{imp.module}.{imp.name}", "external", imp.line, "import", 1.0)
        return
    for (kind, target), _ in res.module_attr(imp.module, imp.name, 0):
        if kind in ("func", "class"):
            yield Edge("IMPORTS", src, target, "symbol", imp.line, "import", 1.0)
        elif kind == "module":
            yield Edge("IMPORTS", src, target, "module", imp.line, "import", 1.0)
        elif kind == "external":
            yield Edge("IMPORTS", src, target, "external", imp.line, "import", 1.0)
        else:  # a module-level variable is a symbol too; anything else points at the module
            info, qname = res.index.info(imp.module), f"{imp.module}.{imp.name}"
            if info is not None and qname in info.symbols:
                yield Edge("IMPORTS", src, qname, "symbol", imp.line, "import", 1.0)
            else:
                yield Edge("IMPORTS", src, imp.module, "module", imp.line, "import", 1.0)


def _inherit_edges(res: _Resolver, scope: Scope) -> Iterator[Edge]:
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


def resolve_module(parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
    """The CALLS, IMPORTS and INHERITS edges going out of `parsed`."""
    data = parsed.data
    if not isinstance(data, PyModule):
        return []
    res = _Resolver(parsed, _index_for(project))
    edges: dict[Edge, None] = {}
    for imp in data.imports:
        edges.update(dict.fromkeys(_import_edges(res, imp)))
    for scope in data.scopes:
        if scope.kind == "class":
            edges.update(dict.fromkeys(_inherit_edges(res, scope)))
    for call in data.calls:
        edges.update(dict.fromkeys(_call_edges(res, call)))
    return list(edges)
