"""Phase 1: one pass over the tree-sitter tree of a file, keeping only the facts of facts.py."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import tree_sitter_python
from kg.ingest.facts import ParsedFile, Symbol
from kg.ingest.languages.python.facts import Binding, Call, Chain, Import, PyModule, Scope, is_test
from kg.ingest.languages.syntax import count_errors as _count_errors
from kg.ingest.languages.syntax import count_lines
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text
from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser

_LITERALS = frozenset(
    {"string", "concatenated_string", "integer", "float", "list", "dictionary", "set", "tuple", "true", "false"}
    | {"none", "list_comprehension", "dictionary_comprehension", "set_comprehension", "generator_expression"}
)
# Methods of builtin containers and strings: called on an object of unknown type, they are not guessed.
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "setter", "getter", "deleter"})
# Decorators that leave a function a function (attributes on it are not worth guessing at).
_TRANSPARENT_DECORATORS = _PROPERTY_DECORATORS | {"staticmethod", "classmethod", "wraps", "abstractmethod",
                                                  "overload", "override", "contextmanager", "asynccontextmanager"}
_ANNOTATION_WRAPPERS = frozenset({"Optional", "Annotated", "ClassVar", "Final", "Type", "type"})

_PARSER = Parser(TSLanguage(tree_sitter_python.language()))






def _string_value(node: Node) -> str | None:
    """Content of a plain string literal, None for f-strings / concatenations / anything else."""
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if any(c.type != "string_content" for c in parts):
        return None
    return "".join(_text(c) for c in parts)


def chain_of(node: Node | None) -> Chain:
    """The expression chain of `node` (see module docstring)."""
    suffix: list[str] = []
    while node is not None:
        t = node.type
        if t == "identifier":
            return (_text(node), *reversed(suffix))
        if t == "attribute":
            suffix.append(_text(node.child_by_field_name("attribute")))
            node = node.child_by_field_name("object")
        elif t == "call":
            suffix.append("()")
            node = node.child_by_field_name("function")
        elif t == "subscript":
            suffix.append("[]")
            node = node.child_by_field_name("value")
        elif t in ("parenthesized_expression", "await", "type") and node.named_child_count == 1:
            node = node.named_children[0]
        elif t in _LITERALS:
            return ("<lit>", *reversed(suffix))
        else:
            break
    return ("?", *reversed(suffix))


def type_chain(node: Node | None) -> Chain:
    """Class named by an annotation: `A`, `m.A`, `"A"`, `Optional[A]`, `A | None`; () when unknown."""
    if node is None:
        return ()
    if node.type == "type" and node.named_child_count == 1:
        return type_chain(node.named_children[0])
    if node.type == "string":
        value = _string_value(node) or ""
        return tuple(value.split(".")) if re.fullmatch(r"[A-Za-z_][\w.]*", value) else ()
    if node.type == "binary_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        chain = type_chain(left)
        return type_chain(right) if chain in ((), ("None",)) else chain
    if node.type in ("generic_type", "subscript"):
        head = node.named_children[0] if node.type == "generic_type" else node.child_by_field_name("value")
        head_chain = chain_of(head)
        if head_chain and head_chain[-1] in _ANNOTATION_WRAPPERS | {"Union"}:
            args = [c for c in node.named_children[1:] if c.type not in ("comment",)]
            while len(args) == 1 and args[0].type in ("type_parameter", "expression_list"):
                args = list(args[0].named_children)
            for arg in args:
                chain = type_chain(arg)
                if chain not in ((), ("None",)):
                    return chain
            return ()
        return head_chain if head_chain[0] not in ("?", "<lit>") else ()
    chain = chain_of(node)
    return chain if chain[0] not in ("?", "<lit>") and "()" not in chain and "[]" not in chain else ()


def _docstring(body: Node | None) -> str:
    if body is None:
        return ""
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        if stmt.type == "expression_statement" and stmt.named_child_count and stmt.named_children[0].type == "string":
            string = stmt.named_children[0]
            raw = "".join(_text(c) for c in string.named_children if c.type == "string_content")
            for line in raw.splitlines():
                if line.strip():
                    return line.strip()
        return ""
    return ""


def _signature(node: Node, body: Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    raw = (node.text or b"")[: end - node.start_byte].decode("utf-8", errors="replace")
    return " ".join(raw.split()).rstrip(":").rstrip()


class _ScopeBuilder:
    def __init__(self, qname: str, kind: str, parent: str) -> None:
        self.qname, self.kind, self.parent = qname, kind, parent
        self.bindings: list[Binding] = []
        self.bases: list[tuple[Chain, int]] = []
        self.attrs: list[Binding] = []
        self.returns: list[Chain] = []
        self.return_type: Chain = ()
        self.wrapped = False
        self.yields: list[Chain] = []
        self.fixture = ""
        self.fixture_decorator: Chain = ()
        self.self_name = ""  # methods: name of the first parameter bound to the instance / class
        self.cls: _ScopeBuilder | None = None  # methods: the class they belong to

    def freeze(self) -> Scope:
        return Scope(
            self.qname,
            self.kind,
            self.parent,
            tuple(self.bindings),
            tuple(self.bases),
            tuple(self.attrs),
            tuple(self.returns),
            self.return_type,
            self.wrapped,
            tuple(self.yields),
            self.fixture,
            self.fixture_decorator,
        )


class _Walker:
    """One pass over the tree collecting symbols and facts."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.symbols: list[Symbol] = []
        self.seen_symbols: set[str] = set()
        self.scopes: list[_ScopeBuilder] = []
        self.by_qname: dict[str, _ScopeBuilder] = {}
        self.imports: list[Import] = []
        self.calls: list[Call] = []

    # -- helpers
    def new_scope(self, qname: str, kind: str, parent: str) -> _ScopeBuilder:
        scope = _ScopeBuilder(qname, kind, parent)
        self.scopes.append(scope)
        self.by_qname.setdefault(qname, scope)
        return scope

    def add_symbol(self, symbol: Symbol) -> None:
        if symbol.qname not in self.seen_symbols:
            self.seen_symbols.add(symbol.qname)
            self.symbols.append(symbol)

    def absolute(self, relative: Node) -> str:
        prefix = next((c for c in relative.children if c.type == "import_prefix"), None)
        dots = len(_text(prefix).strip())
        rest = next((c for c in relative.named_children if c.type == "dotted_name"), None)
        parts = self.module.split(".") if self.module else []
        if not self.is_package:
            parts = parts[:-1]
        parts = parts[: max(0, len(parts) - (dots - 1))] if dots else parts
        if rest is not None:
            parts.append(_text(rest))
        return ".".join(p for p in parts if p)

    # -- traversal
    def visit(self, node: Node, scope: _ScopeBuilder) -> None:
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node, scope)
        else:
            for child in node.named_children:
                self.visit(child, scope)

    def visit_children(self, node: Node | None, scope: _ScopeBuilder) -> None:
        if node is not None:
            for child in node.named_children:
                self.visit(child, scope)

    def visit_decorated(self, node: Node, scope: _ScopeBuilder) -> None:
        definition = node.child_by_field_name("definition")
        for decorator in node.named_children:
            if decorator.type != "decorator" or not decorator.named_child_count:
                continue
            expr = decorator.named_children[0]
            if expr.type in ("identifier", "attribute"):
                self.calls.append(Call(scope.qname, chain_of(expr), _line(decorator)))
            self.visit(expr, scope)
        if definition is not None:
            self.visit_definition(definition, scope, node)

    def visit_function(self, node: Node, scope: _ScopeBuilder) -> None:
        self.visit_definition(node, scope, node)

    def visit_class(self, node: Node, scope: _ScopeBuilder) -> None:
        self.visit_definition(node, scope, node)

    def visit_definition(self, node: Node, scope: _ScopeBuilder, outer: Node) -> None:
        name = _text(node.child_by_field_name("name"))
        if not name:
            self.visit_children(node, scope)
            return
        qname = f"{scope.qname}.{name}" if scope.qname else name
        body = node.child_by_field_name("body")
        is_class = node.type == "class_definition"
        kind = "class" if is_class else ("method" if scope.kind == "class" else "function")
        self.add_symbol(
            Symbol(
                qname,
                name,
                kind,
                outer.start_point[0] + 1,
                outer.end_point[0] + 1,
                scope.qname or self.module,
                _signature(node, body),
                _docstring(body),
            )
        )
        decorators = _decorator_names(outer)
        bind_kind = "class" if is_class else ("prop" if decorators & _PROPERTY_DECORATORS else "func")
        scope.bindings.append(Binding(name, bind_kind, (qname,), _line(node)))
        inner = self.new_scope(qname, "class" if is_class else "function", scope.qname)
        inner.wrapped = not is_class and bool(decorators - _TRANSPARENT_DECORATORS)
        if not is_class and scope.kind in ("module", "class") and "fixture" in decorators:
            inner.fixture, inner.fixture_decorator = _fixture_decorator(outer, name)
        if is_class:
            self.visit_class_header(node, scope, inner)
        else:
            self.visit_function_header(node, scope, inner, outer)
        self.visit_children(body, inner)

    def visit_class_header(self, node: Node, scope: _ScopeBuilder, inner: _ScopeBuilder) -> None:
        supers = node.child_by_field_name("superclasses")
        if supers is None:
            return
        for arg in supers.named_children:
            if arg.type != "keyword_argument":
                chain = type_chain(arg)
                if chain:
                    inner.bases.append((chain, _line(arg)))
        self.visit(supers, scope)

    def visit_function_header(self, node: Node, scope: _ScopeBuilder, inner: _ScopeBuilder, outer: Node) -> None:
        decorators = _decorator_names(outer)
        inner.return_type = type_chain(node.child_by_field_name("return_type"))
        params = node.child_by_field_name("parameters")
        in_class = scope.kind == "class" and "staticmethod" not in decorators
        may_use_fixtures = bool(inner.fixture) or is_test(self.module, inner.qname, scope.kind)
        first = True
        for param in params.named_children if params is not None else ():
            pname, annotation = _param_name_and_type(param)
            for child in param.named_children:  # defaults and annotations run in the enclosing scope
                if child.type not in ("identifier",):
                    self.visit(child, scope)
            if not pname:
                continue
            if first and in_class:
                inner.self_name, inner.cls = pname, scope
                kind = "cls" if "classmethod" in decorators else "self"
                inner.bindings.append(Binding(pname, kind, (scope.qname,), _line(param)))
            elif annotation:
                inner.bindings.append(Binding(pname, "type", annotation, _line(param)))
            elif param.type == "identifier":  # may be a pytest fixture, if this is a test or a fixture
                inner.bindings.append(Binding(pname, "param", (), _line(param)))
                if may_use_fixtures:
                    self.calls.append(Call(inner.qname, (pname,), _line(param), kind="fixture"))
            else:
                inner.bindings.append(Binding(pname, "unknown", (), _line(param)))
            first = False

    def visit_call(self, node: Node, scope: _ScopeBuilder) -> None:
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        chain = chain_of(function)
        literal, obj = "", ()
        positional = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if chain[-1] == "getattr" and len(positional) >= 2:
            obj, literal = chain_of(positional[0]), _string_value(positional[1]) or ""
        elif chain[-1] in ("import_module", "__import__") and positional:
            literal = _string_value(positional[0]) or ""
        self.calls.append(Call(scope.qname, chain, _line(node), literal=literal, obj=obj))
        if function is not None and function.type not in ("identifier",):
            self.visit(function, scope)
        if args is None:
            return
        for arg in args.named_children:
            value = arg.child_by_field_name("value") if arg.type == "keyword_argument" else arg
            if value is not None and value.type in ("identifier", "attribute"):
                ref = chain_of(value)
                if ref[0] not in ("?", "<lit>"):
                    self.calls.append(Call(scope.qname, ref, _line(value), kind="ref"))
            self.visit(arg, scope)

    def visit_assignment(self, node: Node, scope: _ScopeBuilder) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        annotation = type_chain(node.child_by_field_name("type"))
        if left is not None and left.type == "identifier":
            name = _text(left)
            if annotation:
                scope.bindings.append(Binding(name, "type", annotation, _line(node)))
            for binding in _value_bindings(name, right, _line(node)):
                scope.bindings.append(binding)
            if scope.kind == "module":
                self.add_symbol(
                    Symbol(
                        f"{self.module}.{name}" if self.module else name,
                        name,
                        "variable",
                        _line(node),
                        node.end_point[0] + 1,
                        self.module,
                        " ".join(_text(node).split())[:120],
                    )
                )
        elif left is not None and left.type == "attribute":
            self.bind_self_attribute(left, right, node, scope, annotation)
        elif left is not None:
            for target in _pattern_names(left):
                scope.bindings.append(Binding(target, "unknown", (), _line(node)))
        if right is not None:
            self.visit(right, scope)
        if left is not None and left.type != "identifier":
            self.visit(left, scope)

    def method_of(self, scope: _ScopeBuilder) -> _ScopeBuilder | None:
        """The method whose `self` is visible from `scope` (the scope itself or an enclosing function)."""
        current: _ScopeBuilder | None = scope
        while current is not None and current.kind == "function":
            if current.cls is not None:
                return current
            current = self.by_qname.get(current.parent)
        return None

    def bind_self_attribute(
        self, left: Node, right: Node | None, node: Node, scope: _ScopeBuilder, annotation: Chain
    ) -> None:
        method = self.method_of(scope)
        obj = left.child_by_field_name("object")
        if method is None or method.cls is None or obj is None or _text(obj) != method.self_name:
            return
        attr = _text(left.child_by_field_name("attribute"))
        line = _line(node)
        if annotation:
            method.cls.attrs.append(Binding(attr, "type", annotation, line, scope.qname))
        for binding in _value_bindings(attr, right, line):
            method.cls.attrs.append(Binding(binding.name, binding.kind, binding.chain, line, scope.qname))

    def visit_for(self, node: Node, scope: _ScopeBuilder) -> None:
        for name in _pattern_names(node.child_by_field_name("left")):
            scope.bindings.append(Binding(name, "unknown", (), _line(node)))
        self.visit_children(node, scope)

    def visit_as_pattern(self, node: Node, scope: _ScopeBuilder) -> None:
        alias = node.child_by_field_name("alias")
        for name in _pattern_names(alias):
            scope.bindings.append(Binding(name, "unknown", (), _line(node)))
        self.visit_children(node, scope)

    def visit_return(self, node: Node, scope: _ScopeBuilder) -> None:
        if node.named_child_count:
            value = node.named_children[0]
            values = value.named_children if value.type == "conditional_expression" else [value]
            for v in values:
                chain = chain_of(v)
                if chain[0] not in ("?", "<lit>"):
                    scope.returns.append(chain)
        self.visit_children(node, scope)

    def visit_yield(self, node: Node, scope: _ScopeBuilder) -> None:
        if any(c.type == "from" for c in node.children):  # `yield from g()`: not followed
            scope.yields.append(("?",))
        elif node.named_child_count:
            value = node.named_children[0]
            values = value.named_children if value.type == "conditional_expression" else [value]
            scope.yields.extend(chain_of(v) for v in values)
        else:
            scope.yields.append(("<lit>",))
        self.visit_children(node, scope)

    def visit_import(self, node: Node, scope: _ScopeBuilder) -> None:
        line = _line(node)
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                module, alias = _text(item.child_by_field_name("name")), _text(item.child_by_field_name("alias"))
                self.imports.append(Import(scope.qname, module, "", alias, line))
                continue
            module = _text(item)
            top = module.split(".")[0]
            if module == top:
                self.imports.append(Import(scope.qname, module, "", module, line))
            else:  # `import a.b` binds `a`; the edge goes to `a.b`
                self.imports.append(Import(scope.qname, module, "", "", line))
                self.imports.append(Import(scope.qname, top, "", top, line, edge=False))

    def visit_import_from(self, node: Node, scope: _ScopeBuilder) -> None:
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        module = self.absolute(module_node) if module_node.type == "relative_import" else _text(module_node)
        if any(c.type == "wildcard_import" for c in node.named_children):
            self.imports.append(Import(scope.qname, module, "*", "", _line(node)))
            return
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                name = _text(item.child_by_field_name("name"))
                alias = _text(item.child_by_field_name("alias"))
            else:
                name = alias = _text(item)
            self.imports.append(Import(scope.qname, module, name, alias, _line(node)))


def _decorator_names(outer: Node) -> set[str]:
    """Last names of the decorators of a (decorated) definition: `@functools.wraps(f)` → "wraps"."""
    names = set()
    for d in outer.named_children:
        if d.type == "decorator" and d.named_child_count:
            chain = [c for c in chain_of(d.named_children[0]) if c != "()"]
            names.add(chain[-1] if chain else "")
    return names


def _fixture_decorator(outer: Node, name: str) -> tuple[str, Chain]:
    """(requested name, decorator chain) of `@pytest.fixture`, `@pytest.fixture(...)`, `@fixture(name="x")`."""
    for d in outer.named_children:
        if d.type != "decorator" or not d.named_child_count:
            continue
        expr, requested = d.named_children[0], name
        if expr.type == "call":
            args = expr.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else ():
                value = arg.child_by_field_name("value")
                if arg.type == "keyword_argument" and _text(arg.child_by_field_name("name")) == "name":
                    requested = (_string_value(value) if value is not None else None) or name
            expr = expr.child_by_field_name("function")
        chain = chain_of(expr)
        if chain[-1] == "fixture" and chain[0] not in ("?", "<lit>") and "()" not in chain and "[]" not in chain:
            return requested, chain
    return "", ()


def _param_name_and_type(param: Node) -> tuple[str, Chain]:
    t = param.type
    if t == "identifier":
        return _text(param), ()
    if t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
        name_node = param.child_by_field_name("name")
        if name_node is None:
            name_node = next((c for c in param.named_children if c.type == "identifier"), None)
            if name_node is None:  # *args: T / **kw: T
                return "", ()
        return _text(name_node), type_chain(param.child_by_field_name("type"))
    return "", ()


def _pattern_names(node: Node | None) -> list[str]:
    if node is None:
        return []
    if node.type == "identifier":
        return [_text(node)]
    if node.type in (
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "tuple",
        "list",
        "list_splat_pattern",
        "parenthesized_expression",
        "as_pattern_target",
    ):
        return [n for c in node.named_children for n in _pattern_names(c)]
    return []


def _value_bindings(name: str, right: Node | None, line: int) -> list[Binding]:
    """How `name = right` binds: alias, call result, container items, or unknown."""
    if right is None:
        return []
    if right.type in ("identifier", "attribute"):
        return [Binding(name, "alias", chain_of(right), line)]
    if right.type == "call":
        return [Binding(name, "call", chain_of(right.child_by_field_name("function")), line)]
    if right.type in ("list", "tuple", "set", "dictionary"):
        items = [c.child_by_field_name("value") if c.type == "pair" else c for c in right.named_children]
        chains = [chain_of(i) for i in items if i is not None and i.type in ("identifier", "attribute")]
        return [Binding(name, "item", c, line) for c in chains] or [Binding(name, "alias", ("<lit>",), line)]
    if right.type == "assignment":  # a = b = value
        return _value_bindings(name, right.child_by_field_name("right"), line)
    if right.type in _LITERALS:
        return [Binding(name, "alias", ("<lit>",), line)]
    return [Binding(name, "unknown", (), line)]


_HANDLERS = {
    "decorated_definition": _Walker.visit_decorated,
    "function_definition": _Walker.visit_function,
    "class_definition": _Walker.visit_class,
    "call": _Walker.visit_call,
    "assignment": _Walker.visit_assignment,
    "for_statement": _Walker.visit_for,
    "for_in_clause": _Walker.visit_for,
    "as_pattern": _Walker.visit_as_pattern,
    "return_statement": _Walker.visit_return,
    "yield": _Walker.visit_yield,
    "import_statement": _Walker.visit_import,
    "import_from_statement": _Walker.visit_import_from,
}


def parse_module(path: str, module: str, source: bytes, lang: str = "python") -> ParsedFile:
    """The symbols and facts of one file; never raises (syntax errors are counted, what parsed is kept)."""
    is_package = PurePosixPath(path).name == "__init__.py"
    tree = _PARSER.parse(source)
    root = tree.root_node
    walker = _Walker(module, is_package)
    top = walker.new_scope(module, "module", "")
    errors = _count_errors(root)
    try:
        walker.visit_children(root, top)
    except RecursionError:
        errors += 1
    loc = count_lines(source)
    data = PyModule(is_package, tuple(s.freeze() for s in walker.scopes), tuple(walker.imports), tuple(walker.calls))
    return ParsedFile(path, lang, module, loc, tuple(walker.symbols), errors, data)
