"""Python front end: tree-sitter parsing and static resolution of calls, imports and inheritance.

Two phases
----------
1. `parse` (extract.py) walks the tree-sitter tree once and keeps only plain, picklable facts (`PyModule`, see
   facts.py): scopes (module, classes, functions, lambdas) with their name bindings, parameters and container
   elements, imports, class bases, and every call (explicit or implied by the syntax) with its expression written
   as a *chain*: `a.b(x).c[0].d()` is the chain ("a", "b", "()", "c", "[0]", "d"). Nothing from tree-sitter
   survives this phase, so a `ParsedFile` can be cached by content hash.
2. `resolve` evaluates those chains against every parsed module of the project, like a small abstract interpreter:
   resolve.py finds what an expression may be, with parameters kept symbolic; flows.py gives parameters what call
   sites pass (each module's *argument flows*, `summarize`); edges.py makes the edges. Per-project tables (module
   infos, MROs, method-name index, memos) are built lazily and cached on the identity of the `project` mapping:
   treat the mapping as immutable and pass a new one after a change (module infos are also re-checked against the
   `ParsedFile` object they came from).

Lambdas are functions named `<lambdaN>` after the scope that holds them (module, class, function or lambda),
numbered from 1 in source order: `pkg.mod.f.<lambda2>` is the second lambda written directly in `f`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import replace

from kg.ingest.facts import Edge, ParsedFile
from kg.ingest.languages.core import Tally
from kg.ingest.languages.python.edges import module_flows, resolve_module
from kg.ingest.languages.python.extract import parse_module
from kg.ingest.languages.python.facts import Arg, Binding, PyModule, Scope, returns_scalar
from kg.ingest.languages.python.resolve import class_members

__all__ = ["LANGUAGE", "PyModule", "PythonLanguage"]


class PythonLanguage:
    name = "python"
    extensions = (".py",)
    facets = {"class_members": class_members}  # per-file rows of resolve.Index's project-wide tallies

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        # string operations on the walk's normalized posix paths, not pathlib: an update names every module of the
        # tree, and pathlib cost ~0.2 s of it on django
        paths = [p for p in paths if p.endswith(".py") and p.rpartition("/")[2] != ".py"]
        packages = {p.rpartition("/")[0] or "." for p in paths if p.rpartition("/")[2] == "__init__.py"}
        roots = _source_roots(paths, packages)
        out: dict[str, str] = {}
        taken: set[str] = set()
        for path in sorted(paths):
            parts = path[:-3].split("/")
            if parts[-1] == "__init__":
                parts.pop()
            if len(parts) > 1 and parts[0] in roots:
                stripped = ".".join(parts[1:])
                if stripped not in taken:
                    out[path] = stripped
                    taken.add(stripped)
                    continue
            out[path] = ".".join(parts)
            taken.add(out[path])
        return out

    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        return parse_module(path, module, source, self.name)

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        return resolve_module(parsed, project)[0]

    def summarize(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> frozenset:
        """What this module passes to parameters of functions (its own and other modules'): the argument flows,
        comparable between two versions (rows that differ name the parameters whose values changed)."""
        return module_flows(parsed, project)

    def resolve_with(self, parsed: ParsedFile, project: Mapping[str, ParsedFile],
                     flows: Tally) -> tuple[list[Edge], frozenset[str]]:
        """`resolve` given every module's argument flows (the `Tally` of their `summarize` rows, which are keyed by
        parameter), plus the parameters whose flows the edges read (`function#parameter`): when those flows change,
        this file must be resolved again."""
        return resolve_module(parsed, project, flows)

    def interface(self, parsed: ParsedFile) -> Hashable:
        """What other modules' resolution can read of this one: scopes, bindings, bases, imports and symbols,
        without call sites and without line numbers. An edit that only changes calls or moves lines leaves it
        unchanged, so the incremental update re-resolves no other file."""
        data = parsed.data
        symbols = tuple((s.qname, s.kind, s.parent) for s in parsed.symbols)
        if not isinstance(data, PyModule):
            return symbols

        def unlined(binding: Binding) -> Binding:
            return replace(binding, line=0)

        scopes = tuple(replace(scope, bindings=tuple(map(unlined, scope.bindings)),
                               attrs=tuple(map(unlined, scope.attrs)), items=tuple(map(unlined, scope.items)),
                               bases=tuple(chain for chain, _ in scope.bases)) for scope in data.scopes)
        imports = tuple(replace(imp, line=0) for imp in data.imports)
        return symbols, data.is_package, scopes, imports

    def interface_change(self, before: ParsedFile, after: ParsedFile) -> frozenset[str] | None:
        """The names a change is about when it only adds or removes definitions (and edits function-local
        variables no `return` reads); None when it changes what other modules infer (imports, bases, returns,
        class attributes...). Only files that mention those names can resolve differently after such a change."""
        old, new = before.data, after.data
        if not isinstance(old, PyModule) or not isinstance(new, PyModule) or old.is_package != new.is_package:
            return None
        if tuple(replace(i, line=0) for i in old.imports) != tuple(replace(i, line=0) for i in new.imports):
            return None
        old_symbols = {s.qname: (s.kind, s.parent) for s in before.symbols}
        new_symbols = {s.qname: (s.kind, s.parent) for s in after.symbols}
        if any(old_symbols[q] != new_symbols[q] for q in old_symbols.keys() & new_symbols.keys()):
            return None
        touched_qnames = old_symbols.keys() ^ new_symbols.keys()
        names = {q.rsplit(".", 1)[-1] for q in touched_qnames}
        exported_before, exported_after = _exported(old), _exported(new)
        old_scopes = {scope.qname: scope for scope in old.scopes}
        new_scopes = {scope.qname: scope for scope in new.scopes}
        for qname in old_scopes.keys() ^ new_scopes.keys():
            if not any(qname == t or qname.startswith(t + ".") for t in touched_qnames):
                return None
        for qname in old_scopes.keys() & new_scopes.keys():
            a, b = old_scopes[qname], new_scopes[qname]
            if _deep(a) != _deep(b):
                return None
            if [c for c, _ in a.bases] != [c for c, _ in b.bases] or _unlined(a.attrs) != _unlined(b.attrs):
                return None
            local: set[str] = set()
            if a.kind == "function":
                local = {*_names(a.bindings), *_names(b.bindings)}
                local -= exported_before[qname] | exported_after[qname]
            ignorable = names | local
            if _unlined(a.bindings, ignorable) != _unlined(b.bindings, ignorable):
                return None
            if _unlined(a.items, ignorable) != _unlined(b.items, ignorable):
                return None
        return frozenset(names)

    def dependencies(self, parsed: ParsedFile) -> set[str]:
        data = parsed.data
        if not isinstance(data, PyModule):
            return set()
        deps: set[str] = set()
        for imp in data.imports:
            parts = imp.module.split(".")
            deps.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            if imp.name and imp.name != "*":
                deps.add(f"{imp.module}.{imp.name}")
        if any(call.kind == "fixture" for call in data.calls):
            # pytest fills parameters from fixtures of this module's conftests, which it does not import
            package = parsed.module.split(".") if data.is_package else parsed.module.split(".")[:-1]
            deps.update(".".join([*package[:i], "conftest"]) for i in range(len(package) + 1))
        deps.discard(parsed.module)
        deps.discard("")
        return deps


def _deep(scope: Scope) -> tuple:
    """What other modules infer from a scope besides its bindings: a change to it is never a shallow one."""
    return (scope.kind, scope.parent, scope.returns, scope.return_type, scope.yields, scope.fixture,
            scope.fixture_decorator, scope.params, scope.decorators, scope.method, scope.return_args, scope.wrapped,
            scope.overloads)


def _exported(data: PyModule) -> dict[str, set[str]]:
    """Per scope: the names of its local bindings that other modules can read. The scopes of one outermost function
    (a function not nested in another one) share theirs, as closures read the enclosing function's locals: the
    roots of what those functions return (not when a scalar return annotation says it all: facts.returns_scalar)
    or yield, of the attributes they set on `self`, of the parameter defaults and decorators of nested definitions,
    and (transitively) of the bindings and elements of those names. Counted per function, an edit of one function's
    `rv` does not concern every other function's `rv`."""
    parents = {scope.qname: scope for scope in data.scopes}
    outermost: dict[str, str] = {}

    def owner(qname: str) -> str:
        found = outermost.get(qname)
        if found is None:
            found, scope = "", parents.get(qname)
            while scope is not None:
                if scope.kind == "function":
                    found = scope.qname
                scope = parents.get(scope.parent)
            outermost[qname] = found
        return found

    roots: dict[str, set[str]] = {}
    reads: dict[tuple[str, str], set[str]] = {}
    for scope in data.scopes:
        own = roots.setdefault(owner(scope.qname), set())
        returned = () if returns_scalar(scope) else (*scope.returns, *(a.chain for a in _flat(scope.return_args)))
        own.update(c[0] for c in (*returned, *scope.yields) if c)
        around = roots.setdefault(owner(scope.parent), set())  # evaluated where the definition stands
        around.update(c[0] for c in (*scope.decorators, *(p.default for p in scope.params)) if c)
        for b in scope.attrs:
            roots.setdefault(owner(b.scope or scope.qname), set()).update(
                c[0] for c in (b.chain, *(a.chain for a in b.args)) if c)
        for b in (*scope.bindings, *scope.items):
            reads.setdefault((owner(b.scope or scope.qname), b.name), set()).update(
                c[0] for c in (b.chain, *(a.chain for a in b.args)) if c)
    for function, names in roots.items():
        frontier = list(names)
        while frontier:
            for name in reads.get((function, frontier.pop()), ()):
                if name not in names:
                    names.add(name)
                    frontier.append(name)
    return {qname: roots[owner(qname)] for qname in parents}


def _flat(args: Iterable[Iterable[Arg]]) -> Iterator[Arg]:
    for each in args:
        yield from each


def _names(bindings: Iterable[Binding]) -> set[str]:
    return {b.name for b in bindings}


def _unlined(bindings: Iterable[Binding], ignore: set[str] = frozenset()) -> list[Binding]:
    """The bindings without lines, in their order (which binding comes last decides what a name is)."""
    return [replace(b, line=0) for b in bindings if b.name not in ignore]


def _source_roots(paths: list[str], packages: set[str]) -> set[str]:
    """Top folders without `__init__.py` and without modules of their own whose children are packages, and `src/`
    whenever it is no package itself: the src layout's name says what it is, and it often holds a top-level module
    beside its package (pytest's `src/pytest.py` beside `src/_pytest/`, which made every `_pytest` import external
    and left that tree with 27 module dependencies instead of hundreds)."""
    tops_with_files = {p.partition("/")[0] for p in paths if p.count("/") == 1}
    roots = {"src"} if "src" not in packages and any(p.startswith("src/") for p in paths) else set()
    for pkg in packages:
        parts = pkg.split("/")
        if len(parts) == 2 and parts[0] not in packages and parts[0] not in tops_with_files:
            roots.add(parts[0])
    return roots


LANGUAGE = PythonLanguage()
