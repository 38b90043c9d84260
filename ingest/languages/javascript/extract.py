"""Phase 1 for JavaScript and TypeScript, `parse` (pure, per file): one recursive walk over the tree-sitter tree
collects the file's symbols and the unresolved references `resolve` reads (see `facts`, and the package docstring
for what is collected)."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import tree_sitter as ts
import tree_sitter_javascript
import tree_sitter_typescript
from kg.ingest.facts import ParsedFile, Symbol
from kg.ingest.languages.javascript.facts import Call, ClassInfo, Export, Import, JsData, VarType
from kg.ingest.languages.syntax import MAX_NESTING, parse_within_budget, parsed_file, symbol
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text

_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "generator_function_expression"}
)
_SKIP = frozenset(
    {
        "type_annotation",
        "type_alias_declaration",
        "comment",
        "string",
        "template_string",
        "regex",
        "type_arguments",
        "type_parameters",
        "number",
        "property_identifier",
    }
)


@cache
def _parser(grammar: str) -> ts.Parser:
    language = {
        "javascript": tree_sitter_javascript.language,
        "typescript": tree_sitter_typescript.language_typescript,
        "tsx": tree_sitter_typescript.language_tsx,
    }[grammar]()
    return ts.Parser(ts.Language(language))


def _string_value(node: ts.Node | None) -> str | None:
    """The value of a plain string literal (no interpolation), else None."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    if any(child.type == "template_substitution" for child in node.named_children):
        return None
    return _text(node)[1:-1]


def _dotted_expr(node: ts.Node | None) -> str | None:
    """`a.b.c` for identifier/member chains (`this`/`super` kept as roots, `?` for any other root), else None."""
    if node is None:
        return None
    kind = node.type
    if kind in (
        "identifier",
        "type_identifier",
        "this",
        "super",
        "property_identifier",
        "shorthand_property_identifier",
    ):
        return _text(node)
    if kind == "member_expression":
        obj = _dotted_expr(node.child_by_field_name("object")) or "?"
        return f"{obj}.{_text(node.child_by_field_name('property')).lstrip('#')}"
    if kind in ("nested_type_identifier", "nested_identifier"):
        return _text(node).replace(" ", "")
    if kind == "generic_type":
        return _dotted_expr(node.child_by_field_name("name"))
    if kind in ("parenthesized_expression", "non_null_expression"):
        inner = node.named_children
        return _dotted_expr(inner[0]) if inner else None
    return "?"


def _pattern_names(node: ts.Node | None) -> list[str]:
    """Identifiers bound by a parameter or destructuring pattern."""
    if node is None:
        return []
    if node.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [_text(node)]
    names: list[str] = []
    for child in node.named_children:
        if child.type in ("type_annotation", "property_identifier"):
            continue
        if child.type == "pair_pattern":
            names.extend(_pattern_names(child.child_by_field_name("value")))
        else:
            names.extend(_pattern_names(child))
    return names


def _require_specifier(node: ts.Node | None) -> str | None:
    """'./a' for `require('./a')` (also `require('./a').x`), else None."""
    while node is not None and node.type == "member_expression":
        node = node.child_by_field_name("object")
    if node is None or node.type != "call_expression":
        return None
    func = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if func is None or _text(func) != "require" or args is None or args.named_child_count != 1:
        return None
    return _string_value(args.named_children[0])


def _type_name(annotation: ts.Node | None) -> str | None:
    """The class named by a TS type annotation (`: Foo`, `: Foo<T>`, `: ns.Foo`), else None."""
    if annotation is None:
        return None
    inner = (
        annotation.named_children[0]
        if annotation.type == "type_annotation" and annotation.named_children
        else annotation
    )
    if inner.type in ("type_identifier", "nested_type_identifier", "generic_type"):
        return _dotted_expr(inner)
    return None


class _Walker:
    """Collects symbols and unresolved references of one file in a single recursive walk."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.symbols: dict[str, Symbol] = {}
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.classes: list[ClassInfo] = []
        self.calls: list[Call] = []
        self.var_types: list[VarType] = []
        self.owners: dict[str, str] = {}
        self.locals: dict[str, set[str]] = defaultdict(set)
        self.signature_only: set[str] = set()  # overload signatures, replaced by the implementation

    # -- results ------------------------------------------------------------------------------------------------

    def data(self) -> JsData:
        return JsData(
            imports=tuple(self.imports),
            exports=tuple(self.exports),
            classes=tuple(self.classes),
            calls=tuple(self.calls),
            var_types=tuple(self.var_types),
            owners=tuple(sorted(self.owners.items())),
            locals=tuple((scope, tuple(sorted(names))) for scope, names in sorted(self.locals.items()) if names),
        )

    # -- symbols ------------------------------------------------------------------------------------------------

    def add_symbol(self, name: str, kind: str, node: ts.Node, parent: str, signature: str = "") -> str:
        qname = f"{parent}.{name}" if parent else name
        if qname not in self.symbols or qname in self.signature_only:
            self.signature_only.discard(qname)
            self.symbols[qname] = symbol(node, qname, name, kind, parent, signature)
        return qname

    @staticmethod
    def signature(node: ts.Node) -> str:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        return " ".join(_text(params).split())[:200] if params is not None else ""

    # -- walking ------------------------------------------------------------------------------------------------

    def walk(self, node: ts.Node, scope: str, depth: int = 0) -> None:
        if depth > MAX_NESTING:
            return
        handler = getattr(self, f"on_{node.type}", None)
        if handler is not None and handler(node, scope, depth):
            return
        for child in node.named_children:
            if child.type not in _SKIP:
                self.walk(child, scope, depth + 1)

    def walk_children(self, node: ts.Node | None, scope: str, depth: int) -> None:
        if node is not None:
            for child in node.named_children:
                if child.type not in _SKIP:
                    self.walk(child, scope, depth + 1)

    def at_module(self, scope: str) -> bool:
        return scope == self.module

    def function_body(self, node: ts.Node, qname: str, depth: int, owner: str | None = None) -> None:
        """Parameters and body of a named function; `owner` is what `this` means inside it."""
        if owner:
            self.owners[qname] = owner
        self.bind_params(node, qname)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            self.walk_children(body, qname, depth)
        elif body is not None:
            self.walk(body, qname, depth + 1)

    def walk_opt(self, node: ts.Node | None, scope: str, depth: int) -> None:
        if node is not None:
            self.walk(node, scope, depth + 1)

    def bind_params(self, node: ts.Node, scope: str) -> None:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params is None:
            return
        for param in [params] if params.type == "identifier" else params.named_children:
            pattern = param.child_by_field_name("pattern") or param
            if pattern.type == "assignment_pattern":
                pattern = pattern.child_by_field_name("left")
            names = _pattern_names(pattern)
            self.locals[scope].update(names)
            type_name = _type_name(param.child_by_field_name("type"))
            if type_name and len(names) == 1:
                self.var_types.append(VarType(scope, names[0], type_name, False))
            if (
                pattern.type == "identifier"
                and param.type == "required_parameter"
                and any(c.type == "accessibility_modifier" for c in param.children)
                and type_name
                and scope in self.owners
            ):
                self.var_types.append(VarType(self.owners[scope], f"this.{names[0]}", type_name, False))

    # -- declarations ---------------------------------------------------------------------------------------------

    def on_function_declaration(self, node: ts.Node, scope: str, depth: int) -> bool:
        name = _text(node.child_by_field_name("name"))
        if not name:
            return False
        qname = self.add_symbol(name, "function", node, scope, self.signature(node))
        self.function_body(node, qname, depth)
        return True

    on_generator_function_declaration = on_function_declaration

    def on_class_declaration(self, node: ts.Node, scope: str, depth: int, name: str = "") -> bool:
        name = name or _text(node.child_by_field_name("name"))
        if not name:
            return False
        qname = self.add_symbol(name, "class", node, scope)
        bases: list[str] = []
        for child in node.named_children:
            if child.type == "class_heritage":
                bases.extend(self.heritage(child))
        self.classes.append(ClassInfo(qname, tuple(bases), _line(node)))
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            self.class_member(member, qname, scope, depth + 1)
        return True

    on_abstract_class_declaration = on_class_declaration

    def on_class(self, node: ts.Node, scope: str, depth: int) -> bool:  # anonymous or named class expression
        return self.on_class_declaration(node, scope, depth)

    def heritage(self, node: ts.Node) -> list[str]:
        bases: list[str] = []
        for child in node.named_children:
            if child.type == "extends_clause":
                value = child.child_by_field_name("value")
                bases.append(_dotted_expr(value) or "?")
            elif child.type == "implements_clause":
                bases.extend(_dotted_expr(t) or "?" for t in child.named_children)
            else:
                bases.append(_dotted_expr(child) or "?")
        return [b for b in bases if "?" not in b]

    def class_member(self, member: ts.Node, cls: str, scope: str, depth: int) -> None:
        if member.type == "method_definition":
            name = _text(member.child_by_field_name("name")).lstrip("#")
            qname = self.add_symbol(name, "method", member, cls, self.signature(member))
            self.function_body(member, qname, depth, owner=cls)
        elif member.type in ("field_definition", "public_field_definition"):
            name_node = member.child_by_field_name("property") or member.child_by_field_name("name")
            value = member.child_by_field_name("value")
            name = _text(name_node).lstrip("#")
            if value is not None and value.type in _FUNCTION_VALUES and name:
                qname = self.add_symbol(name, "method", member, cls, self.signature(value))
                self.function_body(value, qname, depth, owner=cls)
            elif value is not None:
                if value.type == "new_expression" and name:
                    ctor = _dotted_expr(value.child_by_field_name("constructor"))
                    if ctor and "?" not in ctor:
                        self.var_types.append(VarType(cls, f"this.{name}", ctor, True))
                self.walk(value, scope, depth)
            type_name = _type_name(member.child_by_field_name("type"))
            if type_name and name:
                self.var_types.append(VarType(cls, f"this.{name}", type_name, False))
        elif member.type == "class_static_block":
            self.walk_children(member, scope, depth)

    def on_interface_declaration(self, node: ts.Node, scope: str, depth: int) -> bool:
        name = _text(node.child_by_field_name("name"))
        if name:
            qname = self.add_symbol(name, "class", node, scope)
            bases = [
                _dotted_expr(t) or "?"
                for child in node.named_children
                if child.type == "extends_type_clause"
                for t in child.named_children
            ]
            self.classes.append(ClassInfo(qname, tuple(b for b in bases if "?" not in b), _line(node)))
        return True

    def on_type_alias_declaration(self, node: ts.Node, scope: str, depth: int) -> bool:
        return self.on_enum_declaration(node, scope, depth)

    def on_function_signature(self, node: ts.Node, scope: str, depth: int) -> bool:
        """TS overload or `declare function`: a function symbol until an implementation replaces it."""
        name = _text(node.child_by_field_name("name"))
        if name and f"{scope}.{name}" not in self.symbols:
            self.signature_only.add(self.add_symbol(name, "function", node, scope, self.signature(node)))
        return True

    def on_enum_declaration(self, node: ts.Node, scope: str, depth: int) -> bool:
        name = _text(node.child_by_field_name("name"))
        if name:
            self.add_symbol(name, "class", node, scope)
        return True

    def on_lexical_declaration(self, node: ts.Node, scope: str, depth: int) -> bool:
        for declarator in node.named_children:
            if declarator.type == "variable_declarator":
                self.declarator(declarator, scope, depth + 1)
        return True

    on_variable_declaration = on_lexical_declaration

    def declarator(self, node: ts.Node, scope: str, depth: int) -> None:
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        line = _line(node)
        if name_node is None:
            return
        spec = _require_specifier(value)
        if spec is not None:  # const x = require('./a') / const {a, b: c} = require('./m') / require('./m').x
            self.require_binding(name_node, value, spec, line, scope)
            return
        if name_node.type != "identifier":  # destructuring of something else
            self.locals[scope].update(_pattern_names(name_node)) if not self.at_module(scope) else None
            self.walk_opt(value, scope, depth)
            return
        name = _text(name_node)
        inner = value
        while inner is not None and inner.type == "assignment_expression":  # var app = exports = module.exports = {}
            self.assignment(inner, scope, depth, declared=name)
            inner = inner.child_by_field_name("right")
        type_name = _type_name(node.child_by_field_name("type"))
        if type_name:
            self.var_types.append(VarType(scope, name, type_name, False))
        if inner is not None and inner.type in _FUNCTION_VALUES:
            qname = self.add_symbol(name, "function", node, scope, self.signature(inner))
            self.function_body(inner, qname, depth)
        elif inner is not None and inner.type == "class":
            self.on_class_declaration(inner, scope, depth, name=name)
        elif self.at_module(scope):
            qname = self.add_symbol(name, "variable", node, scope)
            self.value(inner, qname, scope, depth)
        else:
            self.locals[scope].add(name)
            self.value(inner, f"{scope}.{name}", scope, depth, local=name)

    def value(self, node: ts.Node | None, qname: str, scope: str, depth: int, local: str = "") -> None:
        """The right-hand side of a variable: `new C()` types it, an object literal's functions become methods."""
        if node is None:
            return
        if node.type == "new_expression":
            ctor = _dotted_expr(node.child_by_field_name("constructor"))
            if ctor and "?" not in ctor:
                self.var_types.append(VarType(scope, local or qname.rsplit(".", 1)[-1], ctor, True))
        if node.type == "object" and not local:
            self.object_members(node, qname, scope, depth)
            return
        self.walk(node, scope, depth)

    def object_members(self, node: ts.Node, owner: str, scope: str, depth: int, exporting: bool = False) -> None:
        for prop in node.named_children:
            if prop.type == "method_definition":
                name = _text(prop.child_by_field_name("name"))
                qname = self.add_symbol(name, "function" if exporting else "method", prop, owner, self.signature(prop))
                self.function_body(prop, qname, depth, owner=owner)
                if exporting:
                    self.exports.append(Export(name, name))
            elif prop.type == "pair":
                key = prop.child_by_field_name("key")
                val = prop.child_by_field_name("value")
                name = _string_value(key) if key is not None and key.type == "string" else _text(key)
                if val is not None and val.type in _FUNCTION_VALUES and name:
                    qname = self.add_symbol(
                        name, "function" if exporting else "method", prop, owner, self.signature(val)
                    )
                    self.function_body(val, qname, depth, owner=owner)
                    if exporting:
                        self.exports.append(Export(name, name))
                else:
                    if exporting and name and val is not None and val.type == "identifier":
                        self.exports.append(Export(name, _text(val)))
                    self.walk_opt(val, scope, depth)
            elif prop.type == "shorthand_property_identifier" and exporting:
                self.exports.append(Export(_text(prop), _text(prop)))
            else:
                self.walk(prop, scope, depth)

    # -- assignments: CommonJS exports and prototype/object methods -------------------------------------------------

    def on_assignment_expression(self, node: ts.Node, scope: str, depth: int) -> bool:
        return self.assignment(node, scope, depth)

    def assignment(self, node: ts.Node, scope: str, depth: int, declared: str = "") -> bool:
        left = _dotted_expr(node.child_by_field_name("left"))
        right = node.child_by_field_name("right")
        if not left or right is None:
            return False
        parts = left.split(".")
        if left in ("module.exports", "exports"):
            self.module_exports(right, scope, depth, declared)
            return True
        if parts[0] == "this" and len(parts) == 2 and right.type == "new_expression":
            ctor = _dotted_expr(right.child_by_field_name("constructor"))
            owner = self.owners.get(scope)
            if ctor and "?" not in ctor and owner:
                self.var_types.append(VarType(owner, left, ctor, True))
            return False
        if right.type not in _FUNCTION_VALUES or not self.at_module(scope) or "?" in parts or len(parts) < 2:
            return False
        if parts[:2] == ["module", "exports"] and len(parts) == 3 or parts[0] == "exports" and len(parts) == 2:
            name = parts[-1]  # exports.f = function () {}
            qname = self.add_symbol(name, "function", node, scope, self.signature(right))
            self.exports.append(Export(name, name))
            self.function_body(right, qname, depth)
            return True
        if len(parts) == 3 and parts[1] == "prototype" or len(parts) == 2:
            owner = f"{scope}.{parts[0]}"  # X.prototype.m = function / obj.m = function
            qname = self.add_symbol(parts[-1], "method", node, owner, self.signature(right))
            self.function_body(right, qname, depth, owner=owner)
            return True
        return False

    def module_exports(self, right: ts.Node, scope: str, depth: int, declared: str) -> None:
        while right.type == "assignment_expression":
            inner_left = _dotted_expr(right.child_by_field_name("left"))
            if inner_left not in ("module.exports", "exports"):
                break
            right = right.child_by_field_name("right")
        if declared:
            self.exports.append(Export("=", declared))
            return  # the declarator handles the value under the declared name
        if right.type == "identifier":
            self.exports.append(Export("=", _text(right)))
        elif right.type == "object":
            self.exports.append(Export("=", "*"))
            self.object_members(right, scope, scope, depth, exporting=True)
        elif right.type in _FUNCTION_VALUES or right.type == "class":
            name = _text(right.child_by_field_name("name"))
            if name and right.type == "class":
                self.on_class_declaration(right, scope, depth)
            elif name:
                qname = self.add_symbol(name, "function", right, scope, self.signature(right))
                self.function_body(right, qname, depth)
            else:
                self.walk(right, scope, depth)
            self.exports.append(Export("=", name or "*"))
        else:
            spec = _require_specifier(right)
            if spec is not None:  # module.exports = require('./impl')
                self.imports.append(Import("", spec, "*", _line(right)))
                self.exports.append(Export("=", "", spec, "="))
            else:
                self.walk(right, scope, depth)

    # -- imports and exports ----------------------------------------------------------------------------------------

    def require_binding(self, name_node: ts.Node, value: ts.Node, spec: str, line: int, scope: str) -> None:
        member = _dotted_expr(value) if value.type == "member_expression" else None
        imported = member.split(".", 1)[1].split(".")[0] if member and "." in member else "="
        if name_node.type == "identifier":
            self.imports.append(Import(_text(name_node), spec, imported, line))
        elif name_node.type == "object_pattern":
            for prop in name_node.named_children:
                if prop.type == "shorthand_property_identifier_pattern":
                    self.imports.append(Import(_text(prop), spec, _text(prop), line))
                elif prop.type == "pair_pattern":
                    key, val = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                    if val is not None and val.type == "identifier":
                        self.imports.append(Import(_text(val), spec, _text(key), line))
        else:
            self.imports.append(Import("", spec, "*", line))
        if not self.at_module(scope):
            self.locals[scope].update(_pattern_names(name_node))

    def on_import_statement(self, node: ts.Node, scope: str, depth: int) -> bool:
        spec = _string_value(node.child_by_field_name("source"))
        line = _line(node)
        for child in node.named_children:
            if child.type == "import_require_clause":  # TS: import x = require('./a')
                ident = child.named_children[0]
                spec = _string_value(child.child_by_field_name("source"))
                if spec is not None:
                    self.imports.append(Import(_text(ident), spec, "=", line))
                return True
        if spec is None:
            return True
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(Import("", spec, "*", line))
            return True
        for part in clause.named_children:
            if part.type == "identifier":
                self.imports.append(Import(_text(part), spec, "default", line))
            elif part.type == "namespace_import":
                self.imports.append(Import(_text(part.named_children[0]), spec, "*", line))
            elif part.type == "named_imports":
                for item in part.named_children:
                    if item.type == "import_specifier":
                        name = _text(item.child_by_field_name("name"))
                        alias = _text(item.child_by_field_name("alias")) or name
                        self.imports.append(Import(alias, spec, name.strip("'\""), line))
        return True

    def on_export_statement(self, node: ts.Node, scope: str, depth: int) -> bool:
        source = _string_value(node.child_by_field_name("source"))
        line = _line(node)
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(child.type == "default" for child in node.children)
        if source is not None:
            self.reexport(node, source, line)
        elif declaration is not None:
            before = set(self.symbols)
            self.walk(declaration, scope, depth + 1)
            for qname in self.symbols.keys() - before:
                sym = self.symbols[qname]
                if sym.parent == scope:
                    self.exports.append(Export("default" if is_default else sym.name, sym.name))
        elif value is not None:
            self.export_default(value, scope, depth)
        else:
            for child in node.named_children:
                if child.type == "export_clause":
                    for item in child.named_children:
                        name = _text(item.child_by_field_name("name"))
                        alias = _text(item.child_by_field_name("alias")) or name
                        self.exports.append(Export(alias, name))
                elif child.type == "identifier":  # TS `export = X`
                    self.exports.append(Export("=", _text(child)))
        return True

    def export_default(self, value: ts.Node, scope: str, depth: int) -> None:
        if value.type == "identifier":
            self.exports.append(Export("default", _text(value)))
            return
        if value.type in _FUNCTION_VALUES or value.type == "class":
            name = _text(value.child_by_field_name("name")) or "default"
            if value.type == "class":
                self.on_class_declaration(value, scope, depth, name=name)
            else:
                qname = self.add_symbol(name, "function", value, scope, self.signature(value))
                self.function_body(value, qname, depth)
            self.exports.append(Export("default", name))
            return
        self.walk(value, scope, depth)

    def reexport(self, node: ts.Node, source: str, line: int) -> None:
        clause = next((c for c in node.named_children if c.type in ("export_clause", "namespace_export")), None)
        if clause is None:  # export * from './m'
            self.imports.append(Import("", source, "*", line))
            self.exports.append(Export("*", "", source, "*"))
        elif clause.type == "namespace_export":  # export * as ns from './m'
            self.imports.append(Import("", source, "*", line))
            self.exports.append(Export(_text(clause.named_children[0]), "", source, "*"))
        else:
            for item in clause.named_children:
                name = _text(item.child_by_field_name("name"))
                alias = _text(item.child_by_field_name("alias")) or name
                self.imports.append(Import("", source, name, line))
                self.exports.append(Export(alias, "", source, name))

    # -- functions without a name of their own ---------------------------------------------------------------------

    def on_arrow_function(self, node: ts.Node, scope: str, depth: int) -> bool:
        self.bind_params(node, scope)  # callbacks belong to the enclosing named function
        return False

    on_function_expression = on_arrow_function
    on_function = on_arrow_function
    on_generator_function = on_arrow_function

    # -- calls --------------------------------------------------------------------------------------------------

    def on_call_expression(self, node: ts.Node, scope: str, depth: int) -> bool:
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        line = _line(node)
        if func is None:
            return False
        if func.type == "import":  # dynamic import('...')
            spec = _string_value(args.named_children[0]) if args is not None and args.named_children else None
            if spec is not None:
                self.imports.append(Import("", spec, "*", line))
            else:
                self.calls.append(Call(scope, "dyn_import", _text(args)[:80], line))
            self.walk_children(args, scope, depth)
            return True
        if func.type == "identifier" and _text(func) == "require":
            spec = _string_value(args.named_children[0]) if args is not None and args.named_children else None
            if spec is not None:
                self.imports.append(Import("", spec, "*", line))
            else:
                self.calls.append(Call(scope, "dyn_import", f"require{_text(args)}"[:80], line))
            self.walk_children(args, scope, depth)
            return True
        self.callee(func, scope, line)
        if func.type not in ("identifier", "super"):
            self.walk(func, scope, depth + 1)
        if args is not None:
            for arg in args.named_children:
                if arg.type in ("identifier", "member_expression"):
                    ref = _dotted_expr(arg)
                    if ref and "?" not in ref and ref not in ("undefined", "this"):
                        self.calls.append(Call(scope, "ref", ref, line))
                if arg.type not in _SKIP:
                    self.walk(arg, scope, depth + 1)
        return True

    def callee(self, func: ts.Node, scope: str, line: int) -> None:
        if func.type == "super":
            self.calls.append(Call(scope, "super_ctor", "super", line))
            return
        if func.type == "subscript_expression":
            index = func.child_by_field_name("index")
            key = _string_value(index)
            obj = _dotted_expr(func.child_by_field_name("object")) or "?"
            if key is not None and key.isidentifier():
                self.add_member_call(f"{obj}.{key}", scope, line)
            elif index is not None and index.type == "identifier" and "?" not in obj:
                self.calls.append(Call(scope, "computed", f"{obj}.[{_text(index)}]", line))  # this[kMethod]()
            else:
                self.calls.append(Call(scope, "dynamic", " ".join(_text(func).split())[:80], line))
            return
        dotted = _dotted_expr(func)
        if func.type == "identifier":
            kind = "eval" if dotted in ("eval", "Function") else "name"
            self.calls.append(Call(scope, kind, dotted or "?", line))
        elif func.type == "member_expression" and dotted:
            self.add_member_call(dotted, scope, line)

    def add_member_call(self, dotted: str, scope: str, line: int) -> None:
        parts = dotted.split(".")
        if len(parts) >= 2 and parts[-1] == "bind" and "?" not in parts:  # f.bind(this) passes f on
            self.calls.append(Call(scope, "ref", ".".join(parts[:-1]), line))
            return
        if len(parts) >= 2 and parts[-1] in ("call", "apply"):  # f.call(this, ...) calls f
            parts = parts[:-1]
        if len(parts) == 1:
            if parts[0] not in ("?", "this", "super"):
                self.calls.append(Call(scope, "name", parts[0], line))
        elif parts[0] == "super":
            self.calls.append(Call(scope, "super", ".".join(parts[1:]), line))
        elif parts[0] == "this":
            self.calls.append(Call(scope, "this", ".".join(parts[1:]), line))
        else:
            self.calls.append(Call(scope, "member", ".".join(parts), line))

    def on_new_expression(self, node: ts.Node, scope: str, depth: int) -> bool:
        ctor = _dotted_expr(node.child_by_field_name("constructor"))
        if ctor and "?" not in ctor:
            self.calls.append(Call(scope, "new", ctor, _line(node)))
        return False

    def on_jsx_opening_element(self, node: ts.Node, scope: str, depth: int) -> bool:
        name = _dotted_expr(node.child_by_field_name("name"))
        if name and name[:1].isupper() and "?" not in name:  # <Foo/> renders component Foo
            kind = "name" if "." not in name else "member"
            self.calls.append(Call(scope, kind, name, _line(node)))
        return False

    on_jsx_self_closing_element = on_jsx_opening_element


def parse(lang: str, grammar: str, path: str, module: str, source: bytes) -> ParsedFile:
    tree, gave_up = parse_within_budget(_parser(grammar), source)
    root = tree.root_node
    walker = _Walker(module)
    try:
        walker.walk(root, module)
    except RecursionError:  # pathological nesting: keep what was collected
        pass
    return parsed_file(lang, path, module, source, root, walker.symbols.values(), walker.data(), gave_up)
