"""JavaScript and TypeScript front end: `LANGUAGES = [JAVASCRIPT, TYPESCRIPT]`.

Both languages share one implementation; they differ in extensions and grammar (`.tsx` uses the tsx grammar, plain
JavaScript uses the javascript grammar, which understands JSX). The two are separate projects for resolution: a
TypeScript file importing a `.js` file of the same repository gets an `unresolved` module target.

Phase 1, `parse` (pure, per file). One recursive walk over the tree-sitter tree collects:
- symbols: classes (and TS interfaces, type aliases and enums, all kind "class"), functions (declarations and
  `const f = () => ...` / `function` expressions bound to a name, at any depth), methods (class methods incl. static,
  getters/setters, constructors, arrow-function class fields, `X.prototype.m = function`, `obj.m = function` and
  object-literal members of a module-level object), module-level `const`/`let`/`var` variables (not `require` ones);
- imports (`Import`): ES imports, `export ... from` re-exports, `require('...')`, literal `import('...')`;
- exports (`Export`): `export` declarations/clauses/defaults, `module.exports = ...`, `exports.f = ...`;
- classes with their `extends`/`implements` expressions (`ClassInfo`);
- call sites (`Call`) attributed to the innermost *named* function (arrow functions and callbacks belong to their
  enclosing named function or to the module), `new` expressions, functions passed as arguments, JSX components;
- simple type facts (`VarType`): `x = new C()`, TS annotations `x: C`, and `this.x = new C()` in a class.
Nothing tree-sitter specific leaves the walk: `ParsedFile.data` is a `JsData` of plain frozen dataclasses.

Phase 2, `resolve` (per file, against the whole project of one language). A `_ProjectIndex` is built once per
project mapping (cached on its identity) with symbol, path, method-name and import tables; lookups through exports,
re-exports and inheritance chains are memoised in it. Each call shape is resolved by the strongest rule that applies:
local/import names, `this.m()` (self / inherited), `super`, constructors, typed variables (`inferred`), builtins and
external packages, and finally `name_only` candidates (confidence 1/n capped at 0.5, none beyond 8 candidates).
Builtins and externals use resolution "import" (they are implicitly or explicitly imported names).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts
import tree_sitter_javascript
import tree_sitter_typescript
from kg.ingest.facts import Edge, ParsedFile, Symbol
from kg.ingest.languages.project_cache import per_project
from kg.ingest.languages.syntax import count_errors as _count_errors
from kg.ingest.languages.syntax import count_lines
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text

MAX_CANDIDATES = 8
MAX_DEPTH = 600  # deeper trees (minified bundles) are not descended further
ARG_REF_CONFIDENCE = 0.5
DYNAMIC_CONFIDENCE = 0.1

BUILTINS = frozenset(
    """console JSON Math Object Array String Number Boolean Promise Symbol Map Set WeakMap WeakSet WeakRef Date RegExp
    Error TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError parseInt parseFloat isNaN
    isFinite setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate queueMicrotask
    structuredClone encodeURIComponent decodeURIComponent encodeURI decodeURI escape unescape eval fetch process Buffer
    global globalThis window document self navigator location history localStorage sessionStorage alert confirm
    prompt requestAnimationFrame cancelAnimationFrame performance Reflect Proxy Intl BigInt ArrayBuffer
    SharedArrayBuffer DataView Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array
    Float32Array Float64Array BigInt64Array BigUint64Array TextEncoder TextDecoder URL URLSearchParams AbortController
    AbortSignal Blob FormData Headers Request Response Event EventTarget CustomEvent WebSocket Worker atob btoa
    Function Atomics FinalizationRegistry Iterator""".split()
)
# Methods of Array/String/Promise/Map/Set/Object prototypes: a same-named project method is a weaker guess.
BUILTIN_METHOD_NAMES = frozenset(
    """at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach
    includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
    toString unshift values charAt charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd
    padStart repeat replace replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd
    trimStart then catch finally get set has delete clear add hasOwnProperty valueOf toJSON test exec apply call
    bind""".split()
)
BUILTIN_METHOD_DISCOUNT = 0.25
JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx")
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")
_PROBE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "generator_function_expression"}
)
_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration"})
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


# --------------------------------------------------------------------------------------------------------------
# Parsed facts (picklable, tree-sitter free)


@dataclass(frozen=True, slots=True)
class Import:
    local: str  # binding name in this file; "" for side-effect imports and re-exports
    specifier: str  # './a', 'react', 'node:fs'
    imported: str  # exported name, "default", "*" (namespace object) or "=" (what `require` returns)
    line: int


@dataclass(frozen=True, slots=True)
class Export:
    name: str  # exported name, "default", "=" for `module.exports =` / `export =`, or "*" for `export * from`
    local: str = ""  # local name in this module (`*` = the module object itself)
    specifier: str = ""  # set for re-exports
    imported: str = ""  # name in `specifier` for re-exports


@dataclass(frozen=True, slots=True)
class ClassInfo:
    qname: str
    bases: tuple[str, ...]  # dotted `extends` expressions (first) then `implements` types
    line: int


@dataclass(frozen=True, slots=True)
class Call:
    scope: str  # qname of the enclosing named function, or the module
    kind: str  # name | member | this | super | super_ctor | new | ref | computed | dynamic | eval | dyn_import
    target: str  # dotted callee, e.g. "f", "ns.f", "a.b.m" ("?" stands for a root that is not a name)
    line: int


@dataclass(frozen=True, slots=True)
class VarType:
    scope: str  # function/module qname, or class/object qname for `this.x`
    name: str  # variable name, or "this.x"
    type: str  # dotted class expression
    via_new: bool  # True for `new C()`, False for a type annotation


@dataclass(frozen=True, slots=True)
class JsData:
    imports: tuple[Import, ...] = ()
    exports: tuple[Export, ...] = ()
    classes: tuple[ClassInfo, ...] = ()
    calls: tuple[Call, ...] = ()
    var_types: tuple[VarType, ...] = ()
    owners: tuple[tuple[str, str], ...] = ()  # function qname -> class/object qname that `this` refers to
    locals: tuple[tuple[str, tuple[str, ...]], ...] = ()  # function qname -> parameter/local names


# --------------------------------------------------------------------------------------------------------------
# Module names


def _strip_extension(path: str) -> str:
    for declaration in (".d.ts", ".d.mts", ".d.cts"):
        if path.endswith(declaration):
            return path[: -len(declaration)]
    return str(PurePosixPath(path).with_suffix(""))


def _dotted(stem: str) -> str:
    return ".".join(part for part in stem.split("/") if part and part != ".")


def module_name_for(path: str) -> str:
    stem = _strip_extension(path)
    parts = stem.split("/")
    if parts[-1] == "index" and len(parts) > 1:
        parts = parts[:-1]
    return _dotted("/".join(parts))


def _module_names(paths: Iterable[str]) -> dict[str, str]:
    """`a/b.js` → `a.b`, `a/index.js` → `a`; on a collision the most direct file wins, the others keep their
    full dotted stem (`a.index`, `types.d`)."""
    paths = list(paths)

    def rank(path: str) -> tuple[int, int, str]:
        return (PurePosixPath(path).stem == "index", ".d." in PurePosixPath(path).name, path)

    names: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(paths, key=rank):
        name = module_name_for(path)
        if name in taken:
            name = _dotted(str(PurePosixPath(path).with_suffix("")))
        if name in taken:  # e.g. index.d.mts next to index.d.cts
            name = _dotted(path)
        taken.add(name)
        names[path] = name
    return names


# --------------------------------------------------------------------------------------------------------------
# Phase 1: parsing


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
            self.symbols[qname] = Symbol(
                qname=qname,
                name=name,
                kind=kind,  # type: ignore[arg-type]
                start_line=_line(node),
                end_line=node.end_point.row + 1,
                parent=parent,
                signature=signature,
            )
        return qname

    @staticmethod
    def signature(node: ts.Node) -> str:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        return " ".join(_text(params).split())[:200] if params is not None else ""

    # -- walking ------------------------------------------------------------------------------------------------

    def walk(self, node: ts.Node, scope: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
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


def _parse(lang: str, grammar: str, path: str, module: str, source: bytes) -> ParsedFile:
    tree = _parser(grammar).parse(source)
    root = tree.root_node
    walker = _Walker(module)
    try:
        walker.walk(root, module)
    except RecursionError:  # pathological nesting: keep what was collected
        pass
    return ParsedFile(
        path=path,
        lang=lang,
        module=module,
        loc=count_lines(source),
        symbols=tuple(walker.symbols.values()),
        syntax_errors=_count_errors(root),
        data=walker.data(),
    )


# --------------------------------------------------------------------------------------------------------------
# Phase 2: resolution

Target = tuple[str, str]  # (qname or external name, target_kind)


def _external_name(spec: str) -> str:
    spec = spec.removeprefix("node:")
    if spec.startswith("@"):
        scope_pkg, _, rest = spec.partition("/")
        pkg, _, rest = rest.partition("/")
        head = f"{scope_pkg}/{pkg}"
        return ".".join([head, *[p for p in rest.split("/") if p]])
    return ".".join(p for p in spec.split("/") if p)


@dataclass
class _ProjectIndex:
    """Lookup tables over one project, built once and memoised (see `_index`)."""

    project: Mapping[str, ParsedFile]
    symbols: dict[str, Symbol] = field(default_factory=dict)
    module_of: dict[str, str] = field(default_factory=dict)  # symbol qname -> module
    by_path: dict[str, str] = field(default_factory=dict)  # repo path (with and without extension) -> module
    methods: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    bindings: dict[str, dict[str, Import]] = field(default_factory=dict)
    exports: dict[str, dict[str, list[Export]]] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    locals: dict[str, frozenset[str]] = field(default_factory=dict)
    var_types: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)
    memo_export: dict[tuple[str, str], Target | None] = field(default_factory=dict)
    memo_bases: dict[str, list[Target]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for module, parsed in self.project.items():
            data: JsData = parsed.data or JsData()
            path = parsed.path
            self.by_path[path] = module
            self.by_path.setdefault(_strip_extension(path), module)
            for sym in parsed.symbols:
                self.symbols[sym.qname] = sym
                self.module_of[sym.qname] = module
                if sym.kind == "method":
                    self.methods[sym.name].append(sym.qname)
            for cls in data.classes:
                self.classes[cls.qname] = cls
            self.bindings[module] = {imp.local: imp for imp in data.imports if imp.local}
            table: dict[str, list[Export]] = defaultdict(list)
            for exp in data.exports:
                table[exp.name].append(exp)
            self.exports[module] = table
            self.owners.update(data.owners)
            for scope, names in data.locals:
                self.locals[scope] = frozenset(names)
            for vt in data.var_types:
                self.var_types.setdefault((vt.scope, vt.name), (vt.type, vt.via_new))

    # -- modules and exports ----------------------------------------------------------------------------------------

    def resolve_specifier(self, from_module: str, spec: str) -> Target:
        if not spec.startswith("."):
            return (_external_name(spec), "external")
        base = self.project[from_module].path if from_module in self.project else ""
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(base), spec))
        candidates = [stem]
        if PurePosixPath(stem).suffix in (".js", ".jsx", ".mjs", ".cjs"):
            candidates.append(str(PurePosixPath(stem).with_suffix("")))  # TS ESM imports './a.js' for './a.ts'
        for cand in candidates:
            if cand in self.by_path and cand == stem:
                return (self.by_path[cand], "module")
            for ext in _PROBE_EXTENSIONS:
                if cand + ext in self.by_path:
                    return (self.by_path[cand + ext], "module")
            for ext in _PROBE_EXTENSIONS:
                if f"{cand}/index{ext}" in self.by_path:
                    return (self.by_path[f"{cand}/index{ext}"], "module")
        return (module_name_for(stem.lstrip("./") or stem), "unresolved")

    def resolve_import(self, from_module: str, spec: str, imported: str, seen: frozenset = frozenset()) -> Target:
        module, kind = self.resolve_specifier(from_module, spec)
        if kind == "external":
            return (module, kind) if imported in ("*", "=", "default") else (f"{module}.{imported}", kind)
        if kind == "unresolved":
            return (module, kind) if imported in ("*", "=", "default") else (f"{module}.{imported}", kind)
        if imported == "*":
            return (module, "module")
        return self.resolve_export(module, imported, seen) or (f"{module}.{imported}", "unresolved")

    def resolve_export(self, module: str, name: str, seen: frozenset = frozenset()) -> Target | None:
        key = (module, name)
        if key in self.memo_export:
            return self.memo_export[key]
        if key in seen:
            return None
        seen = seen | {key}
        result = self._resolve_export(module, name, seen)
        self.memo_export[key] = result
        return result

    def _resolve_export(self, module: str, name: str, seen: frozenset) -> Target | None:
        table = self.exports.get(module, {})
        for exp in table.get(name, ()):
            if exp.specifier:
                return self.resolve_import(module, exp.specifier, exp.imported, seen)
            found = self.resolve_local(module, exp.local, seen)
            if found:
                return found
        if name == "default" and "=" in table:  # ESM default import of a CommonJS module
            return self.resolve_export(module, "=", seen)
        if name in ("default", "="):  # no explicit value: the module object itself
            return (module, "module")
        if f"{module}.{name}" in self.symbols:
            return (f"{module}.{name}", "symbol")
        for exp in table.get("*", ()):
            module2, kind = self.resolve_specifier(module, exp.specifier)
            if kind == "module":
                found = self.resolve_export(module2, name, seen)
                if found and found[1] == "symbol" or found and found[0] != module2:
                    return found
        return None

    def resolve_local(self, module: str, local: str, seen: frozenset = frozenset()) -> Target | None:
        if local == "*":
            return (module, "module")
        if f"{module}.{local}" in self.symbols:
            return (f"{module}.{local}", "symbol")
        imp = self.bindings.get(module, {}).get(local)
        if imp is not None:
            return self.resolve_import(module, imp.specifier, imp.imported, seen)
        return None

    # -- names in scopes ----------------------------------------------------------------------------------------

    def scope_chain(self, scope: str, module: str) -> list[str]:
        """Enclosing function scopes of `scope`, innermost first, module excluded (class/object bodies skipped)."""
        chain: list[str] = []
        while scope and scope != module:
            sym = self.symbols.get(scope)
            if sym is None:
                break
            if sym.kind in ("function", "method"):
                chain.append(scope)
            scope = sym.parent
        return chain

    def resolve_name(self, module: str, scope: str, name: str) -> tuple[Target, str] | None:
        """(target, resolution) of a bare name at `scope`; None when it is a local variable or unknown."""
        for fn in self.scope_chain(scope, module):
            if f"{fn}.{name}" in self.symbols:
                return (f"{fn}.{name}", "symbol"), "local"
            if name in self.locals.get(fn, ()):
                return None
        imp = self.bindings.get(module, {}).get(name)
        if imp is not None:
            return self.resolve_import(module, imp.specifier, imp.imported), "import"
        if f"{module}.{name}" in self.symbols:
            return (f"{module}.{name}", "symbol"), "local"
        if name in BUILTINS:
            return (f"<builtin>.{name}", "builtin"), "import"
        return None

    def var_type(self, module: str, scope: str, name: str) -> tuple[str, bool] | None:
        for fn in [*self.scope_chain(scope, module), module]:
            found = self.var_types.get((fn, name))
            if found:
                return found
        return None

    def member(self, target: Target, rest: list[str]) -> Target | None:
        """Follow `.a.b` from a resolved target: module exports, static methods, object members, externals."""
        qname, kind = target
        for i, part in enumerate(rest):
            if kind in ("external", "builtin", "unresolved"):
                return (".".join([qname, *rest[i:]]), kind)
            if kind == "module":
                found = self.resolve_export(qname, part)
                if found is None:
                    return None
                qname, kind = found
                continue
            method = self.lookup_method(qname, part)
            if method is None:
                return None
            qname, kind = method[0]
        return (qname, kind)

    # -- classes ------------------------------------------------------------------------------------------------

    def bases(self, cls: str) -> list[Target]:
        if cls in self.memo_bases:
            return self.memo_bases[cls]
        self.memo_bases[cls] = []  # cycle guard
        info, module = self.classes.get(cls), self.module_of.get(cls, "")
        found: list[Target] = []
        for base in info.bases if info else ():
            target = self.resolve_dotted(module, self.parent_of(cls, module), base)
            if target:
                found.append(target[0])
        self.memo_bases[cls] = found
        return found

    def parent_of(self, qname: str, default: str) -> str:
        sym = self.symbols.get(qname)
        return sym.parent if sym is not None else default

    def resolve_dotted(self, module: str, scope: str, dotted: str) -> tuple[Target, str] | None:
        head, *rest = dotted.split(".")
        named = self.resolve_name(module, scope, head)
        if named is None:
            return None
        target = self.member(named[0], rest) if rest else named[0]
        return (target, named[1]) if target else None

    def lookup_method(self, cls: str, name: str, depth: int = 0) -> tuple[Target, int] | None:
        """The method `name` of class `cls` or of its nearest base: (target, inheritance depth)."""
        if depth > 20:
            return None
        if f"{cls}.{name}" in self.symbols:
            return (f"{cls}.{name}", "symbol"), depth
        for base, kind in self.bases(cls):
            if kind in ("external", "builtin"):
                return (f"{base}.{name}", kind), depth + 1
            if kind == "symbol":
                found = self.lookup_method(base, name, depth + 1)
                if found:
                    return found
        return None

    def constructor_of(self, cls: str, depth: int = 0) -> Target:
        """`A.constructor` when A defines one, else the class itself."""
        if f"{cls}.constructor" in self.symbols:
            return (f"{cls}.constructor", "symbol")
        return (cls, "symbol")

    def owner(self, module: str, scope: str) -> str | None:
        for fn in self.scope_chain(scope, module):
            if fn in self.owners:
                return self.owners[fn]
        return None


_index = per_project(_ProjectIndex)  # one index per project mapping


class _Resolver:
    """Turns the `JsData` of one file into edges using the project index."""

    def __init__(self, parsed: ParsedFile, index: _ProjectIndex) -> None:
        self.parsed = parsed
        self.module = parsed.module
        self.index = index
        self.data: JsData = parsed.data or JsData()
        self.edges: dict[tuple, Edge] = {}

    def emit(self, kind: str, source: str, target: Target, line: int, resolution: str, confidence: float) -> None:
        edge = Edge(kind, source, target[0], target[1], line, resolution, round(confidence, 3))  # type: ignore[arg-type]
        self.edges.setdefault((kind, source, target[0], line, resolution), edge)

    def run(self) -> list[Edge]:
        for imp in self.data.imports:
            self.emit(
                "IMPORTS",
                self.module,
                self.index.resolve_import(self.module, imp.specifier, imp.imported),
                imp.line,
                "import",
                1.0,
            )
        for cls in self.data.classes:
            for base in cls.bases:
                found = self.index.resolve_dotted(self.module, self.index.parent_of(cls.qname, self.module), base)
                if found:
                    self.emit("INHERITS", cls.qname, found[0], cls.line, found[1], 1.0)
        for call in self.data.calls:
            getattr(self, f"call_{call.kind}")(call)
        return list(self.edges.values())

    def call(self, call: Call, target: Target, resolution: str, confidence: float = 1.0) -> None:
        self.emit("CALLS", call.scope, target, call.line, resolution, confidence)

    def name_only(self, call: Call, name: str) -> None:
        candidates = self.index.methods.get(name, [])
        if not candidates or len(candidates) > MAX_CANDIDATES:
            return
        confidence = min(0.5, 1.0 / len(candidates))
        if name in BUILTIN_METHOD_NAMES:  # `xs.map()` is far more often Array.prototype.map than ours
            confidence *= BUILTIN_METHOD_DISCOUNT
        for qname in candidates:
            self.call(call, (qname, "symbol"), "name_only", confidence)

    def call_name(self, call: Call) -> None:
        found = self.index.resolve_name(self.module, call.scope, call.target) if "." not in call.target else None
        if found is None and "." in call.target:
            found = self.index.resolve_dotted(self.module, call.scope, call.target)
        if found:
            self.call(call, found[0], found[1])

    def call_member(self, call: Call) -> None:
        head, *rest = call.target.split(".")
        typed = self.index.var_type(self.module, call.scope, head) if head != "?" else None
        if typed and len(rest) == 1:
            cls = self.index.resolve_dotted(self.module, call.scope, typed[0])
            if cls and self.typed_call(call, cls[0], rest[0]):
                return
        named = self.index.resolve_name(self.module, call.scope, head) if head != "?" else None
        if named:
            target = self.index.member(named[0], rest)
            if target:
                self.call(call, target, named[1])
                return
        self.name_only(call, rest[-1])

    def typed_call(self, call: Call, cls: Target, method: str) -> bool:
        if cls[1] in ("external", "builtin"):
            self.call(call, (f"{cls[0]}.{method}", cls[1]), "inferred", 0.9)
            return True
        found = self.index.lookup_method(cls[0], method) if cls[1] == "symbol" else None
        if found:
            self.call(call, found[0], "inferred", 0.9)
            return True
        return False

    def call_this(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        parts = call.target.split(".")
        if owner and len(parts) == 1:
            found = self.index.lookup_method(owner, parts[0])
            if found:
                self.call(call, found[0], "self" if found[1] == 0 else "inherited")
                return
        if owner and len(parts) == 2:
            typed = self.index.var_types.get((owner, f"this.{parts[0]}"))
            cls = (
                self.index.resolve_dotted(self.index.module_of.get(owner, self.module), owner, typed[0])
                if typed
                else None
            )
            if cls and self.typed_call(call, cls[0], parts[1]):
                return
        self.name_only(call, parts[-1])

    def call_super(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        name = call.target.split(".")[-1]
        for base in self.index.bases(owner) if owner else ():
            if base[1] == "symbol":
                found = self.index.lookup_method(base[0], name)
                if found:
                    self.call(call, found[0], "super")
                    return
            elif base[1] in ("external", "builtin"):
                self.call(call, (f"{base[0]}.{name}", base[1]), "super")
                return

    def call_super_ctor(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        bases = self.index.bases(owner) if owner else []
        if bases:
            base = bases[0]
            target = self.index.constructor_of(base[0]) if base[1] == "symbol" else base
            self.call(call, target, "super")

    def call_new(self, call: Call) -> None:
        found = self.index.resolve_dotted(self.module, call.scope, call.target)
        if found is None:
            return
        target, resolution = found
        sym = self.index.symbols.get(target[0]) if target[1] == "symbol" else None
        if sym is not None and sym.kind == "class":
            self.call(call, self.index.constructor_of(target[0]), "constructor")
        elif sym is not None:
            self.call(call, target, "constructor")
        else:
            self.call(call, target, resolution)

    def call_ref(self, call: Call) -> None:
        head, *rest = call.target.split(".")
        if head == "this":
            owner = self.index.owner(self.module, call.scope)
            found = self.index.lookup_method(owner, rest[0]) if owner and len(rest) == 1 else None
            target = found[0] if found else None
        else:
            named = self.index.resolve_dotted(self.module, call.scope, call.target)
            target = named[0] if named else None
        sym = self.index.symbols.get(target[0]) if target and target[1] == "symbol" else None
        if sym is not None and sym.kind in ("function", "method"):
            self.call(call, target, "inferred", ARG_REF_CONFIDENCE)

    def call_computed(self, call: Call) -> None:
        """`this[kMethod]()`: a method declared as `[kMethod]() {}` when there is one, else dynamic."""
        before = len(self.edges)
        head, _, rest = call.target.partition(".")
        shaped = Call(
            call.scope, "this" if head == "this" else "member", rest if head == "this" else call.target, call.line
        )
        self.call_this(shaped) if head == "this" else self.call_member(shaped)
        if len(self.edges) == before:
            self.call_dynamic(Call(call.scope, "dynamic", call.target.replace(".[", "["), call.line))

    def call_dynamic(self, call: Call) -> None:
        self.call(call, (call.target, "unresolved"), "dynamic", DYNAMIC_CONFIDENCE)

    def call_eval(self, call: Call) -> None:
        self.call(call, (f"<builtin>.{call.target}", "builtin"), "dynamic", DYNAMIC_CONFIDENCE)

    def call_dyn_import(self, call: Call) -> None:
        self.emit("IMPORTS", self.module, (call.target, "unresolved"), call.line, "dynamic", DYNAMIC_CONFIDENCE)


# --------------------------------------------------------------------------------------------------------------
# The language objects


class EcmaScript:
    """A `Language` for JavaScript or TypeScript (see the module docstring)."""

    def __init__(self, name: str, extensions: tuple[str, ...]) -> None:
        self.name = name
        self.extensions = extensions

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        return _module_names(paths)

    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        grammar = "javascript" if self.name == "javascript" else ("tsx" if path.endswith(".tsx") else "typescript")
        return _parse(self.name, grammar, path, module, source)

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        return _Resolver(parsed, _index(project)).run()

    def dependencies(self, parsed: ParsedFile) -> set[str]:
        """Modules named by relative imports (`./a` → `dir.a`, which also covers `./a/index`). Re-export chains
        and base classes further away need the transitive closure, which the pipeline can compute from these."""
        data: JsData = parsed.data or JsData()
        specifiers = [imp.specifier for imp in data.imports] + [exp.specifier for exp in data.exports]
        deps: set[str] = set()
        for spec in specifiers:
            if spec.startswith("."):
                stem = posixpath.normpath(posixpath.join(posixpath.dirname(parsed.path), spec))
                has_ext = PurePosixPath(stem).suffix in JS_EXTENSIONS + TS_EXTENSIONS
                deps.add(module_name_for(stem if has_ext else stem + ".js"))
        deps.discard(parsed.module)
        return deps


JAVASCRIPT = EcmaScript("javascript", JS_EXTENSIONS)
TYPESCRIPT = EcmaScript("typescript", TS_EXTENSIONS)
LANGUAGES = [JAVASCRIPT, TYPESCRIPT]
