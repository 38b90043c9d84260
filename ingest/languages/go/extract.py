"""Phase 1 for Go, `parse` (pure, per file): one walk collects the file's symbols and the unresolved references
`resolve` reads (see `facts`, and the package docstring for what is collected)."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import tree_sitter as ts
import tree_sitter_go
from kg.ingest.facts import ParsedFile, Symbol
from kg.ingest.languages.go.facts import GoCall, GoData, GoField, GoImport, GoVarType
from kg.ingest.languages.go.names import BUILTINS, PREDECLARED_TYPES, dotted_dir
from kg.ingest.languages.syntax import MAX_NESTING, parse_within_budget, parsed_file, symbol
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text


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
        self.package = dotted_dir(path)
        self.symbols: dict[str, Symbol] = {}
        self.imports: list[GoImport] = []
        self.calls: list[GoCall] = []
        self.var_types: list[GoVarType] = []
        self.receivers: list[tuple[str, str]] = []
        self.locals: dict[str, set[str]] = defaultdict(set)
        self.fields: list[GoField] = []
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
        if qname not in self.symbols:
            self.symbols[qname] = symbol(node, qname, name, kind, parent, signature)
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
            self.var_types.append(GoVarType(qname, rvar, rtype))
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
                    self.fields.extend(GoField(qname, n, ftype) for n in names)
                else:
                    self.embeds.append((qname, ftype))
                    self.fields.append(GoField(qname, ftype.rsplit(".", 1)[-1], ftype))

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
                    self.var_types.append(GoVarType(self.package, name, inferred))
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
                    self.var_types.append(GoVarType(scope, _text(name_node), ptype))

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
        if depth > MAX_NESTING:
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
                self.var_types.append(GoVarType(scope, name, vtype))

    def local_var(self, node: ts.Node, scope: str) -> None:
        for spec in self.specs(node, ("var_spec", "const_spec")):
            vtype = _type_expr(spec.child_by_field_name("type"))
            values = spec.child_by_field_name("value")
            for i, name_node in enumerate(spec.children_by_field_name("name")):
                name = _text(name_node)
                self.locals[scope].add(name)
                inferred = vtype or self.value_type(values, i)
                if inferred:
                    self.var_types.append(GoVarType(scope, name, inferred))

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


def parse(path: str, module: str, source: bytes) -> ParsedFile:
    tree, gave_up = parse_within_budget(_parser(), source)
    root = tree.root_node
    walker = _Walker(path, module)
    try:
        walker.walk_file(root)
    except RecursionError:  # pathological nesting: keep what was collected
        pass
    return parsed_file("go", path, module, source, root, walker.symbols.values(), walker.data(), gave_up)
