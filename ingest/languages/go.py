"""Go front end: `LANGUAGE`.

Naming. A Go package spans the files of one directory, so two names are used:
- the Module node of a file is its dotted path without extension (`pkg/server/handler.go` → `pkg.server.handler`);
- symbols are qualified by the *package*: the dotted directory (`pkg.server.Handle`, methods under their receiver
  type, `pkg.server.Server.Start`). Files at the repository root use their `package` clause name instead.
Top-level symbols have the file's module as `parent` (so the containment tree stays file-based); methods have
their receiver type's qname as parent even when the type is declared in another file of the package.

Phase 1, `parse` (pure): one walk collects funcs, methods, types (struct/interface/other named types and aliases,
kind "class"), package-level vars/consts, imports, call sites attributed to the enclosing func/method (function
literals belong to it), and type facts: receivers, parameters, `var x T`, `x := T{}` / `&T{}` / `new(T)` /
`x := NewT()` (through the callee's first result type, resolved later), struct field types and embedded types.

Phase 2, `resolve`: a per-project index (cached on the identity of the project mapping) maps package directories,
symbols, method names, field types and result types. Imports resolve to an in-repo package when the import path
ends with a package directory of the repo (standard-library roots never do); otherwise they are external, named by
import path (`net/http.Get`). Calls: same-package functions (`local`), `pkg.F()` (`import`), methods on the
receiver (`self`, or `inherited` when promoted from an embedded type), on variables of known type (`inferred`),
builtins (`<builtin>.len`), and otherwise `name_only` candidates (1/n, capped at 0.5, none beyond 8).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts
import tree_sitter_go
from kg.ingest.facts import Edge, ParsedFile, Symbol
from kg.ingest.languages.project_cache import per_project
from kg.ingest.languages.syntax import count_errors as _count_errors
from kg.ingest.languages.syntax import count_lines
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text

MAX_CANDIDATES = 8
MAX_DEPTH = 600
BUILTINS = frozenset(
    "append cap clear close complex copy delete imag len make max min new panic print println real recover".split()
)
PREDECLARED_TYPES = frozenset(
    """bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16
    uint32 uint64 uintptr any comparable""".split()
)
# First segments of standard-library import paths: these never name an in-repo package.
STDLIB_ROOTS = frozenset(
    """archive bufio builtin bytes cmp compress container context crypto database debug embed encoding errors expvar
    flag fmt go hash html image index io iter log maps math mime net os path plugin reflect regexp runtime slices sort
    strconv strings sync syscall testing text time unicode unique unsafe C""".split()
)


# --------------------------------------------------------------------------------------------------------------
# Parsed facts (picklable, tree-sitter free)


@dataclass(frozen=True, slots=True)
class GoImport:
    alias: str  # local name: explicit alias, else the last path segment; "." / "_" kept as is
    path: str  # "github.com/x/y/pkg/server"
    line: int


@dataclass(frozen=True, slots=True)
class GoCall:
    scope: str  # qname of the enclosing func/method, or the file module for package-level initialisers
    target: str  # "F", "x.M", "a.b.M", "r.Path().Methods" (`()` marks the result of a call)
    line: int


@dataclass(frozen=True, slots=True)
class GoData:
    package: str  # package qname used for the symbols of this file
    imports: tuple[GoImport, ...] = ()
    calls: tuple[GoCall, ...] = ()
    var_types: tuple[tuple[str, str, str], ...] = ()  # (scope, variable, "T" / "pkg.T" / "()x.F" = result of x.F())
    receivers: tuple[tuple[str, str], ...] = ()  # (method qname, receiver variable)
    locals: tuple[tuple[str, tuple[str, ...]], ...] = ()  # scope -> local names (params, := , var)
    fields: tuple[tuple[str, str, str], ...] = ()  # (type qname, field, type expr)
    embeds: tuple[tuple[str, str], ...] = ()  # (type qname, embedded type expr)
    results: tuple[tuple[str, str], ...] = ()  # (func qname, first result type expr)


# --------------------------------------------------------------------------------------------------------------
# Names


def _dotted_dir(path: str) -> str:
    return ".".join(p for p in posixpath.dirname(path).split("/") if p and p != ".")


def _module_names(paths: Iterable[str]) -> dict[str, str]:
    """A Go file's module is its dotted path *with* the `.go` suffix (`cmd/app/main.go` → `cmd.app.main.go`):
    symbols are named by package (`cmd.app.main` is `func main`), so the file needs a name of its own."""
    return {path: ".".join(p for p in str(PurePosixPath(path)).split("/") if p) for path in paths}


# --------------------------------------------------------------------------------------------------------------
# Phase 1: parsing


@cache
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tree_sitter_go.language()))






def _type_expr(node: ts.Node | None) -> str | None:
    """`T` / `pkg.T` for a (pointer to a / generic instance of a) named type, else None."""
    while node is not None and node.type in ("pointer_type", "parenthesized_type", "generic_type"):
        node = (
            node.child_by_field_name("type")
            if node.type == "generic_type"
            else (node.named_children[0] if node.named_children else None)
        )
    if node is None:
        return None
    if node.type == "type_identifier":
        name = _text(node)
        return None if name in PREDECLARED_TYPES else name
    if node.type == "qualified_type":
        return f"{_text(node.child_by_field_name('package'))}.{_text(node.child_by_field_name('name'))}"
    return None


def _dotted(node: ts.Node | None) -> str:
    """`a.b.c` for identifier/selector chains, `?` for any other root."""
    if node is None:
        return "?"
    if node.type in ("identifier", "field_identifier", "package_identifier", "type_identifier"):
        return _text(node)
    if node.type == "selector_expression":
        return f"{_dotted(node.child_by_field_name('operand'))}.{_text(node.child_by_field_name('field'))}"
    if node.type == "parenthesized_expression" and node.named_children:
        return _dotted(node.named_children[0])
    if node.type == "call_expression":  # r.Path("/").Methods(): the receiver is the result of a call
        callee = _dotted(node.child_by_field_name("function"))
        args = node.child_by_field_name("arguments")
        if callee == "new" and args is not None and args.named_children:  # new(T).M()
            type_name = _type_expr(args.named_children[0])
            return f"{type_name}{{}}" if type_name else "?"
        return "?" if callee.startswith("?") else f"{callee}()"
    if node.type == "unary_expression" and node.named_children:  # (&T{}).M()
        return _dotted(node.named_children[-1])
    if node.type == "composite_literal":
        type_name = _type_expr(node.child_by_field_name("type"))
        return f"{type_name}{{}}" if type_name else "?"
    return "?"




class _Walker:
    """Collects the symbols and unresolved references of one Go file."""

    def __init__(self, path: str, module: str) -> None:
        self.path = path
        self.module = module
        self.package = _dotted_dir(path)
        self.symbols: dict[str, Symbol] = {}
        self.imports: list[GoImport] = []
        self.calls: list[GoCall] = []
        self.var_types: list[tuple[str, str, str]] = []
        self.receivers: list[tuple[str, str]] = []
        self.locals: dict[str, set[str]] = defaultdict(set)
        self.fields: list[tuple[str, str, str]] = []
        self.embeds: list[tuple[str, str]] = []
        self.results: list[tuple[str, str]] = []

    def data(self) -> GoData:
        return GoData(
            package=self.package,
            imports=tuple(self.imports),
            calls=tuple(self.calls),
            var_types=tuple(self.var_types),
            receivers=tuple(self.receivers),
            locals=tuple((scope, tuple(sorted(names))) for scope, names in sorted(self.locals.items())),
            fields=tuple(self.fields),
            embeds=tuple(self.embeds),
            results=tuple(self.results),
        )

    def add_symbol(self, name: str, kind: str, node: ts.Node, owner: str, parent: str, signature: str = "") -> str:
        qname = f"{owner}.{name}" if owner else name
        self.symbols.setdefault(
            qname,
            Symbol(
                qname=qname,
                name=name,
                kind=kind,  # type: ignore[arg-type]
                start_line=_line(node),
                end_line=node.end_point.row + 1,
                parent=parent,
                signature=signature,
            ),
        )
        return qname

    # -- top level ------------------------------------------------------------------------------------------------

    def walk_file(self, root: ts.Node) -> None:
        for child in root.named_children:
            if child.type == "package_clause" and not self.package:
                self.package = _text(child.named_children[0]) if child.named_children else "main"
        for child in root.named_children:
            handler = getattr(self, f"top_{child.type}", None)
            if handler is not None:
                handler(child)
            else:
                self.walk(child, self.module)

    def top_import_declaration(self, node: ts.Node) -> None:
        specs = [n for n in node.named_children if n.type == "import_spec"]
        for group in (n for n in node.named_children if n.type == "import_spec_list"):
            specs.extend(n for n in group.named_children if n.type == "import_spec")
        for spec in specs:
            path = _text(spec.child_by_field_name("path")).strip('"`')
            alias = _text(spec.child_by_field_name("name")) or path.rsplit("/", 1)[-1]
            self.imports.append(GoImport(alias, path, _line(spec)))

    def top_function_declaration(self, node: ts.Node) -> None:
        name = _text(node.child_by_field_name("name"))
        qname = self.add_symbol(name, "function", node, self.package, self.module, self.signature(node))
        self.function(node, qname)

    def top_method_declaration(self, node: ts.Node) -> None:
        receiver = node.child_by_field_name("receiver")
        decl = (
            next((p for p in receiver.named_children if p.type == "parameter_declaration"), None)
            if receiver is not None
            else None
        )
        rtype = _type_expr(decl.child_by_field_name("type")) if decl is not None else None
        owner = f"{self.package}.{rtype}" if rtype else self.package
        name = _text(node.child_by_field_name("name"))
        qname = self.add_symbol(name, "method", node, owner, owner, self.signature(node))
        rvar = _text(decl.child_by_field_name("name")) if decl is not None else ""
        if rvar and rtype:
            self.receivers.append((qname, rvar))
            self.var_types.append((qname, rvar, rtype))
            self.locals[qname].add(rvar)
        self.function(node, qname)

    def top_type_declaration(self, node: ts.Node) -> None:
        for spec in node.named_children:
            if spec.type not in ("type_spec", "type_alias"):
                continue
            name = _text(spec.child_by_field_name("name"))
            qname = self.add_symbol(name, "class", spec, self.package, self.module)
            body = spec.child_by_field_name("type")
            if body is not None and body.type == "struct_type":
                self.struct_fields(body, qname)
            elif body is not None and body.type == "interface_type":
                for elem in body.named_children:
                    embedded = (
                        _type_expr(elem.named_children[0]) if elem.type == "type_elem" and elem.named_children else None
                    )
                    if embedded:
                        self.embeds.append((qname, embedded))

    def struct_fields(self, struct: ts.Node, qname: str) -> None:
        for decls in struct.named_children:
            for fdecl in decls.named_children if decls.type == "field_declaration_list" else ():
                if fdecl.type != "field_declaration":
                    continue
                ftype = _type_expr(fdecl.child_by_field_name("type"))
                names = [_text(c) for c in fdecl.children_by_field_name("name")]
                if not ftype:
                    continue
                if names:
                    self.fields.extend((qname, n, ftype) for n in names)
                else:
                    self.embeds.append((qname, ftype))
                    self.fields.append((qname, ftype.rsplit(".", 1)[-1], ftype))

    def top_var_declaration(self, node: ts.Node) -> None:
        for spec in self.specs(node, ("var_spec", "const_spec")):
            vtype = _type_expr(spec.child_by_field_name("type"))
            names = spec.children_by_field_name("name")
            values = spec.child_by_field_name("value")
            for i, name_node in enumerate(names):
                name = _text(name_node)
                if name == "_":
                    continue
                self.add_symbol(name, "variable", spec, self.package, self.module)
                inferred = vtype or self.value_type(values, i)
                if inferred:
                    self.var_types.append((self.package, name, inferred))
            if values is not None:
                self.walk(values, self.module)

    top_const_declaration = top_var_declaration

    @staticmethod
    def specs(node: ts.Node, kinds: tuple[str, ...]) -> list[ts.Node]:
        found = [n for n in node.named_children if n.type in kinds]
        for group in (n for n in node.named_children if n.type.endswith("_spec_list")):
            found.extend(n for n in group.named_children if n.type in kinds)
        return found

    @staticmethod
    def signature(node: ts.Node) -> str:
        params = _text(node.child_by_field_name("parameters"))
        result = _text(node.child_by_field_name("result"))
        return " ".join(f"{params} {result}".split())[:200]

    # -- function bodies ------------------------------------------------------------------------------------------

    def bind_params(self, node: ts.Node, scope: str) -> None:
        params = node.child_by_field_name("parameters")
        for decl in params.named_children if params is not None else ():
            ptype = _type_expr(decl.child_by_field_name("type"))
            for name_node in decl.children_by_field_name("name"):
                self.locals[scope].add(_text(name_node))
                if ptype:
                    self.var_types.append((scope, _text(name_node), ptype))

    def function(self, node: ts.Node, qname: str) -> None:
        self.bind_params(node, qname)
        result = node.child_by_field_name("result")
        if result is not None and result.type == "parameter_list":
            result = result.named_children[0].child_by_field_name("type") if result.named_children else None
        rtype = _type_expr(result)
        if rtype:
            self.results.append((qname, rtype))
        body = node.child_by_field_name("body")
        if body is not None:
            self.walk(body, qname)

    def walk(self, node: ts.Node, scope: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            return
        kind = node.type
        if kind == "call_expression":
            self.call(node, scope)
        elif kind == "short_var_declaration":
            self.short_var(node, scope)
        elif kind in ("var_declaration", "const_declaration") and scope != self.module:
            self.local_var(node, scope)
        elif kind in ("range_clause", "type_switch_statement", "receive_statement"):
            self.bind_left(node, scope)
        elif kind == "func_literal":  # closures belong to the enclosing function, so do their parameters
            self.bind_params(node, scope)
        for child in node.named_children:
            self.walk(child, scope, depth + 1)

    def call(self, node: ts.Node, scope: str) -> None:
        func = node.child_by_field_name("function")
        if func is None or func.type in ("func_literal", "parenthesized_expression"):
            return
        target = _dotted(func)
        if not target.startswith("?") and not target.endswith("?"):
            self.calls.append(GoCall(scope, target, _line(node)))

    def short_var(self, node: ts.Node, scope: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        names = [_text(n) for n in left.named_children] if left is not None else []
        for i, name in enumerate(names):
            self.locals[scope].add(name)
            vtype = self.value_type(right, i) if len(names) == (right.named_child_count if right else 0) else None
            if vtype is None and i == 0 and right is not None and right.named_child_count == 1:
                vtype = self.value_type(right, 0)  # x, err := NewX()
            if vtype and name != "_":
                self.var_types.append((scope, name, vtype))

    def local_var(self, node: ts.Node, scope: str) -> None:
        for spec in self.specs(node, ("var_spec", "const_spec")):
            vtype = _type_expr(spec.child_by_field_name("type"))
            values = spec.child_by_field_name("value")
            for i, name_node in enumerate(spec.children_by_field_name("name")):
                name = _text(name_node)
                self.locals[scope].add(name)
                inferred = vtype or self.value_type(values, i)
                if inferred:
                    self.var_types.append((scope, name, inferred))

    def bind_left(self, node: ts.Node, scope: str) -> None:
        left = node.child_by_field_name("left") or node.child_by_field_name("alias")
        if left is not None:
            names = [left] if left.type == "identifier" else left.named_children
            self.locals[scope].update(_text(n) for n in names if n.type == "identifier")

    @staticmethod
    def value_type(values: ts.Node | None, index: int) -> str | None:
        """Type of the `index`-th value: `T{}`, `&T{}`, `new(T)`, or `()F` meaning "first result of F"."""
        if values is None or index >= values.named_child_count:
            return None
        value = values.named_children[index]
        if value.type == "unary_expression" and value.named_children:
            value = value.named_children[-1]
        if value.type == "composite_literal":
            return _type_expr(value.child_by_field_name("type"))
        if value.type == "call_expression":
            func = value.child_by_field_name("function")
            args = value.child_by_field_name("arguments")
            if _text(func) == "new" and args is not None and args.named_children:
                return _type_expr(args.named_children[0])
            callee = _dotted(func)
            return None if callee.startswith("?") or callee in BUILTINS else f"(){callee}"
        return None


def _parse(path: str, module: str, source: bytes) -> ParsedFile:
    root = _parser().parse(source).root_node
    walker = _Walker(path, module)
    try:
        walker.walk_file(root)
    except RecursionError:
        pass
    return ParsedFile(
        path=path,
        lang="go",
        module=module,
        loc=count_lines(source),
        symbols=tuple(walker.symbols.values()),
        syntax_errors=_count_errors(root),
        data=walker.data(),
    )


# --------------------------------------------------------------------------------------------------------------
# Phase 2: resolution

Target = tuple[str, str]  # (qname or external name, target_kind)


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
            for scope, name, vtype in data.var_types:
                self.var_types.setdefault((scope, name), vtype)
            for scope, names in data.locals:
                self.locals[scope] = frozenset(names)
            for owner, name, ftype in data.fields:
                self.fields[(owner, name)] = ftype
            for owner, embedded in data.embeds:
                self.embeds[owner].append(embedded)
            self.results.update(data.results)

    def resolve_import(self, path: str) -> Target:
        """In-repo package qname when `path` ends with a package directory of the repo, else the external path."""
        if path in self.import_memo:
            return self.import_memo[path]
        parts = path.split("/")
        result: Target = (path, "external")
        if parts[0] not in STDLIB_ROOTS or "." in parts[0]:
            for i in range(len(parts)):
                found = self.packages.get("/".join(parts[i:]))
                if found is not None:
                    result = (found, "module")
                    break
            else:  # the module root itself: `github.com/gorilla/mux` for a root `package mux`
                if self.packages.get("") == parts[-1]:
                    result = (parts[-1], "module")
        self.import_memo[path] = result
        return result


_index = per_project(_ProjectIndex)  # one index per project mapping


class _Resolver:
    """Turns the `GoData` of one file into edges using the project index."""

    def __init__(self, parsed: ParsedFile, index: _ProjectIndex) -> None:
        self.parsed = parsed
        self.index = index
        self.data: GoData = parsed.data or GoData(package="")
        self.package = self.data.package
        self.aliases = {imp.alias: imp for imp in self.data.imports}
        self.receivers = dict(self.data.receivers)
        self.edges: dict[tuple, Edge] = {}

    def emit(self, kind: str, source: str, target: Target, line: int, resolution: str, confidence: float) -> None:
        edge = Edge(kind, source, target[0], target[1], line, resolution, round(confidence, 3))  # type: ignore[arg-type]
        self.edges.setdefault((kind, source, target[0], line, resolution), edge)

    def run(self) -> list[Edge]:
        for imp in self.data.imports:
            target, kind = self.index.resolve_import(imp.path)
            # A Go package is a folder of files, and the graph's modules are files: import each of them.
            for module in sorted(self.index.package_files.get(target, ())) if kind == "module" else [target]:
                self.emit("IMPORTS", self.parsed.module, (module, kind), imp.line, "import", 1.0)
        for call in self.data.calls:
            self.resolve_call(call)
        return list(self.edges.values())

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
            return (f"{pkg}.{name}", "symbol" if kind == "module" else kind)
        qname = f"{package}.{expr}"
        return (qname, "symbol") if qname in self.index.symbols else None

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
        if depth > 8:
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
            if current is None or current[1] != "symbol":
                return None
            current = self.member_type(current[0], part)
        return current

    def member_type(self, type_qname: str, part: str) -> Target | None:
        if part.endswith("()"):
            found = self.lookup_method(type_qname, part[:-2])
            return self.result_type(found[0]) if found else None
        ftype = self.index.fields.get((type_qname, part))
        return self.declared_type(type_qname, ftype) if ftype else None

    def lookup_method(self, type_qname: str, name: str, depth: int = 0) -> tuple[str, int] | None:
        """Method `name` of a type or promoted from its embedded types: (qname, embedding depth)."""
        if depth > 10:
            return None
        if f"{type_qname}.{name}" in self.index.symbols:
            return f"{type_qname}.{name}", depth
        for embedded in self.index.embeds.get(type_qname, ()):
            base = self.declared_type(type_qname, embedded)
            if base and base[1] == "symbol":
                found = self.lookup_method(base[0], name, depth + 1)
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
            target = (f"{pkg}.{name}", "symbol" if kind == "module" else kind)
            if kind != "module" or target[0] in self.index.symbols:
                self.edge(call, target, "import")
                return
        typed = self.expr_type(call.scope, receiver)
        if typed and self.typed_call(call, typed, name, self_call=self.receivers.get(call.scope) == receiver):
            return
        self.name_only(call, name)

    def edge(self, call: GoCall, target: Target, resolution: str, confidence: float = 1.0) -> None:
        self.emit("CALLS", call.scope, target, call.line, resolution, confidence)

    def call_name(self, call: GoCall, name: str) -> None:
        if name in self.index.locals.get(call.scope, ()):
            return  # a closure or function value held in a local variable
        qname = f"{self.package}.{name}"
        sym = self.index.symbols.get(qname)
        if sym is not None and sym.kind == "function":
            self.edge(call, (qname, "symbol"), "local")
        elif sym is None and name in BUILTINS:
            self.edge(call, (f"<builtin>.{name}", "builtin"), "import")

    def typed_call(self, call: GoCall, typed: Target, name: str, self_call: bool) -> bool:
        if typed[1] == "external":
            self.edge(call, (f"{typed[0]}.{name}", "external"), "inferred", 0.9)
            return True
        found = self.lookup_method(typed[0], name)
        if found is None:
            return False
        if found[1] > 0:
            self.edge(call, (found[0], "symbol"), "inherited")
        elif self_call:
            self.edge(call, (found[0], "symbol"), "self")
        else:
            self.edge(call, (found[0], "symbol"), "inferred", 0.9)
        return True

    def name_only(self, call: GoCall, name: str) -> None:
        candidates = self.index.methods.get(name, [])
        if not candidates or len(candidates) > MAX_CANDIDATES:
            return
        confidence = min(0.5, 1.0 / len(candidates))
        for qname in candidates:
            self.edge(call, (qname, "symbol"), "name_only", confidence)


# --------------------------------------------------------------------------------------------------------------
# The language object


class Go:
    name = "go"
    extensions = (".go",)

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        return _module_names(paths)

    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        return _parse(path, module, source)

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        return _Resolver(parsed, _index(project)).run()

    def provides(self, parsed: ParsedFile) -> set[str]:
        """Names other files depend on this one by: its package (see `dependencies`)."""
        data: GoData = parsed.data or GoData(package="")
        return {parsed.module, data.package}

    def dependencies(self, parsed: ParsedFile) -> set[str]:
        """Package qnames (dotted directories), not file modules: this file's own package and, for each import,
        every dotted suffix of its path (one of which is the in-repo package, if any). A change to any file of one of
        these packages can change the edges (`provides` maps a file to its package)."""
        data: GoData = parsed.data or GoData(package="")
        deps = {data.package}
        for imp in data.imports:
            parts = imp.path.split("/")
            if parts[0] in STDLIB_ROOTS and "." not in parts[0]:
                continue
            deps.update(".".join(parts[i:]) for i in range(len(parts)))
        return deps


LANGUAGE = Go()
