"""Phase 2 for Go, `resolve` (per file, against the whole project).

A per-project index (`core.per_project`) maps package directories, symbols, method names, field types and result
types. Imports resolve to an in-repo package when the import path ends with a package directory of the repo
(standard-library roots never do); otherwise they are external, named by import path (`net/http.Get`). Calls:
same-package functions (`local`), `pkg.F()` (`import`), methods on the receiver (`self`, or `inherited` when promoted
from an embedded type), on variables of known type (`inferred`), builtins (`<builtin>.len`), and otherwise
`name_only` candidates (`core.EdgeSet.name_only`).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from kg.ingest.facts import Edge, ParsedFile, Symbol
from kg.ingest.languages.core import INFERRED_CONFIDENCE, MAX_CHAIN, EdgeSet, Method, Target, per_project
from kg.ingest.languages.go.facts import GoCall, GoData, GoImport
from kg.ingest.languages.go.names import BUILTINS, is_stdlib


@dataclass
class _ProjectIndex:
    project: Mapping[str, ParsedFile]
    symbols: dict[str, Symbol] = field(default_factory=dict)
    packages: dict[str, str] = field(default_factory=dict)  # package dir (posix) -> package qname
    methods: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    var_types: dict[tuple[str, str], str] = field(default_factory=dict)
    locals: dict[str, frozenset[str]] = field(default_factory=dict)
    fields: dict[tuple[str, str], str] = field(default_factory=dict)
    embeds: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    results: dict[str, str] = field(default_factory=dict)
    module_of: dict[str, str] = field(default_factory=dict)  # symbol qname -> module declaring it
    package_files: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # package -> file modules
    import_memo: dict[str, Target] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for module, parsed in self.project.items():
            data: GoData = parsed.data or GoData(package="")
            directory = posixpath.dirname(parsed.path)
            if directory not in self.packages or self.packages[directory].endswith("_test"):
                self.packages[directory] = data.package
            self.package_files[data.package].append(module)
            for sym in parsed.symbols:
                self.symbols[sym.qname] = sym
                if sym.kind == "method":
                    self.methods[sym.name].append(sym.qname)
                self.module_of[sym.qname] = module
            for vt in data.var_types:
                self.var_types.setdefault((vt.scope, vt.name), vt.type)
            for scope, names in data.locals:
                self.locals[scope] = frozenset(names)
            for fld in data.fields:
                self.fields[(fld.owner, fld.name)] = fld.type
            for owner, embedded in data.embeds:
                self.embeds[owner].append(embedded)
            self.results.update(data.results)

    def resolve_import(self, path: str) -> Target:
        """In-repo package qname when `path` ends with a package directory of the repo, else the external path."""
        if path in self.import_memo:
            return self.import_memo[path]
        parts = path.split("/")
        result = Target(path, "external")
        if not is_stdlib(path):
            for i in range(len(parts)):
                found = self.packages.get("/".join(parts[i:]))
                if found is not None:
                    result = Target(found, "module")
                    break
            else:  # the module root itself: `github.com/gorilla/mux` for a root `package mux`
                if self.packages.get("") == parts[-1]:
                    result = Target(parts[-1], "module")
        self.import_memo[path] = result
        return result


index_for = per_project(_ProjectIndex)


def resolve(parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
    return _Resolver(parsed, index_for(project)).run()


class _Resolver:
    """Turns the `GoData` of one file into edges using the project index."""

    def __init__(self, parsed: ParsedFile, index: _ProjectIndex) -> None:
        self.parsed = parsed
        self.index = index
        self.data: GoData = parsed.data or GoData(package="")
        self.package = self.data.package
        self.aliases = {imp.alias: imp for imp in self.data.imports}
        self.receivers = dict(self.data.receivers)
        self.edges = EdgeSet()

    def run(self) -> list[Edge]:
        for imp in self.data.imports:
            target, kind = self.index.resolve_import(imp.path)
            # A Go package is a folder of files, and the graph's modules are files: import each of them.
            for module in sorted(self.index.package_files.get(target, ())) if kind == "module" else [target]:
                self.edges.emit("IMPORTS", self.parsed.module, Target(module, kind), imp.line, "import")
        for call in self.data.calls:
            self.resolve_call(call)
        return self.edges.edges()

    # -- context of other files ---------------------------------------------------------------------------------

    def aliases_of(self, qname: str) -> Mapping[str, GoImport]:
        """Imports of the file declaring `qname`: type expressions are written relative to that file."""
        module = self.index.module_of.get(qname)
        if module is None or module == self.parsed.module:
            return self.aliases
        data: GoData = self.index.project[module].data
        return {imp.alias: imp for imp in data.imports}

    def package_of(self, qname: str) -> str:
        sym = self.index.symbols.get(qname)
        depth = 2 if sym is not None and sym.kind == "method" else 1
        return qname.rsplit(".", depth)[0]

    # -- types ----------------------------------------------------------------------------------------------------

    def type_qname(self, expr: str, package: str, aliases: Mapping[str, GoImport]) -> Target | None:
        """A type expression `T` / `x.T` written in `package` with imports `aliases` → type qname or external."""
        if "." in expr:
            alias, name = expr.split(".", 1)
            imp = aliases.get(alias)
            if imp is None:
                return None
            pkg, kind = self.index.resolve_import(imp.path)
            return Target(f"{pkg}.{name}", "symbol" if kind == "module" else kind)
        qname = f"{package}.{expr}"
        return Target(qname, "symbol") if qname in self.index.symbols else None

    def declared_type(self, owner: str, expr: str) -> Target | None:
        """A type expression found in the declaration of symbol `owner` (field, result or variable type)."""
        return self.type_qname(
            expr, self.package_of(owner) if owner in self.index.symbols else owner, self.aliases_of(owner)
        )

    def result_type(self, func: str | None) -> Target | None:
        expr = self.index.results.get(func) if func else None
        return self.declared_type(func, expr) if expr and func else None

    def var_type(self, scope: str, name: str, depth: int) -> Target | None:
        expr = self.index.var_types.get((scope, name))
        if expr is None and name not in self.index.locals.get(scope, ()):
            scope = self.package
            expr = self.index.var_types.get((scope, name))  # package-level variable of this package
        if expr is None:
            return None
        if expr.startswith("()"):
            return self.expr_type(scope, expr[2:] + "()", depth + 1)
        return self.type_qname(expr, self.package, self.aliases)

    def expr_type(self, scope: str, expr: str, depth: int = 0) -> Target | None:
        """Type of a receiver expression: a variable, `pkg.Var`, field chains and call results (`a.b().c`)."""
        if depth > MAX_CHAIN:
            return None
        parts = expr.split(".")
        head, rest = parts[0], parts[1:]
        local = head.removesuffix("()") in self.index.locals.get(scope, ())
        if head.endswith("{}"):  # T{}.x, (&T{}).x, new(T).x
            current = self.type_qname(head[:-2], self.package, self.aliases)
        elif head.endswith("()"):  # F().x: a function of this package
            current = self.result_type(f"{self.package}.{head[:-2]}") if not local else None
        elif head in self.aliases and not local and rest:  # pkg.F().x or pkg.Var.x
            pkg, kind = self.index.resolve_import(self.aliases[head].path)
            member, rest = rest[0], rest[1:]
            if kind != "module":
                return None
            if member.endswith("()"):
                current = self.result_type(f"{pkg}.{member[:-2]}")
            else:
                var_expr = self.index.var_types.get((pkg, member))
                current = (
                    self.declared_type(f"{pkg}.{member}", var_expr)
                    if var_expr and not var_expr.startswith("()")
                    else None
                )
        else:
            current = self.var_type(scope, head, depth)
        for part in rest:
            if current is None or current.kind != "symbol":
                return None
            current = self.member_type(current.name, part)
        return current

    def member_type(self, type_qname: str, part: str) -> Target | None:
        if part.endswith("()"):
            found = self.lookup_method(type_qname, part[:-2])
            return self.result_type(found.target.name) if found else None
        ftype = self.index.fields.get((type_qname, part))
        return self.declared_type(type_qname, ftype) if ftype else None

    def lookup_method(self, type_qname: str, name: str, depth: int = 0, seen: set[str] | None = None) -> Method | None:
        """Method `name` of a type or promoted from its embedded types (depth first)."""
        seen = set() if seen is None else seen
        if depth > MAX_CHAIN or type_qname in seen:
            return None
        seen.add(type_qname)
        if f"{type_qname}.{name}" in self.index.symbols:
            return Method(Target(f"{type_qname}.{name}", "symbol"), depth)
        for embedded in self.index.embeds.get(type_qname, ()):
            base = self.declared_type(type_qname, embedded)
            if base and base.kind == "symbol":
                found = self.lookup_method(base.name, name, depth + 1, seen)
                if found:
                    return found
        return None

    # -- calls ----------------------------------------------------------------------------------------------------

    def resolve_call(self, call: GoCall) -> None:
        receiver, _, name = call.target.rpartition(".")
        if not receiver:
            self.call_name(call, name)
            return
        local = receiver in self.index.locals.get(call.scope, ())
        if not local and receiver in self.aliases:
            pkg, kind = self.index.resolve_import(self.aliases[receiver].path)
            target = Target(f"{pkg}.{name}", "symbol" if kind == "module" else kind)
            if kind != "module" or target.name in self.index.symbols:
                self.edge(call, target, "import")
                return
        typed = self.expr_type(call.scope, receiver)
        if typed and self.typed_call(call, typed, name, self_call=self.receivers.get(call.scope) == receiver):
            return
        self.name_only(call, name)

    def edge(self, call: GoCall, target: Target, resolution: str, confidence: float = 1.0) -> None:
        self.edges.emit("CALLS", call.scope, target, call.line, resolution, confidence)

    def call_name(self, call: GoCall, name: str) -> None:
        if name in self.index.locals.get(call.scope, ()):
            return  # a closure or function value held in a local variable
        qname = f"{self.package}.{name}"
        sym = self.index.symbols.get(qname)
        if sym is not None and sym.kind == "function":
            self.edge(call, Target(qname, "symbol"), "local")
        elif sym is None and name in BUILTINS:
            self.edge(call, Target(f"<builtin>.{name}", "builtin"), "import")

    def typed_call(self, call: GoCall, typed: Target, name: str, self_call: bool) -> bool:
        if typed.kind == "external":
            self.edge(call, Target(f"{typed.name}.{name}", "external"), "inferred", INFERRED_CONFIDENCE)
            return True
        found = self.lookup_method(typed.name, name)
        if found is None:
            return False
        if found.depth > 0:
            self.edge(call, found.target, "inherited")
        elif self_call:
            self.edge(call, found.target, "self")
        else:
            self.edge(call, found.target, "inferred", INFERRED_CONFIDENCE)
        return True

    def name_only(self, call: GoCall, name: str) -> None:
        self.edges.name_only(call.scope, call.line, self.index.methods.get(name, ()))
