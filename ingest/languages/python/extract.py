"""Phase 1: one pass over the tree-sitter tree of a file, keeping only the facts of facts.py.

What the walk records, besides symbols and imports:

- every call with its arguments; decorator applications as calls of the decorator's value with the decorated
  definition as argument (`@a.route("/")` is the call `a.route("/")` and then the call of its result);
- implicit calls: iteration (`for`, comprehensions), `with`, operators, comparisons, `in`, subscripts, unary
  operators, augmented assignment, f-string interpolation, and attribute reads and writes (a property or a
  descriptor may run there), each once per scope and expression;
- name bindings with their conditions (inside if/try/loops/match they are alternatives), unpacking by position
  (`a, b = x` binds `a` to `x[0]`), container elements (literal elements, `x[k] = v`, `x.append(v)` ...),
  parameters with their kinds, defaults and annotations, decorators, returns, yields;
- lambdas as functions of their own, named `<lambdaN>` after the scope that holds them (numbered from 1 in source
  order among that scope's lambdas; a lambda inside a lambda is numbered within the outer one). A tree-sitter query
  finds a file's lambdas before the walk, so each gets its number when the walk meets it, in whatever order.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath

import tree_sitter_python
from kg.ingest.facts import ParsedFile, Symbol
from kg.ingest.languages.python.facts import (
    ENTER,
    ITER,
    UNKNOWN_KEY,
    Arg,
    Binding,
    Call,
    Chain,
    Import,
    Overload,
    Param,
    PyModule,
    Scope,
    is_test,
    subscript,
)
from kg.ingest.languages.syntax import count_errors as _count_errors
from kg.ingest.languages.syntax import count_lines, parse_within_budget
from kg.ingest.languages.syntax import line as _line
from kg.ingest.languages.syntax import text as _text
from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor

# Literal node types → the chain root standing for their value.
_LITERAL_ROOTS = {
    "integer": "<lit>", "float": "<lit>", "true": "<lit>", "false": "<lit>", "none": "<lit>", "ellipsis": "<lit>",
    "string": "<str>", "concatenated_string": "<str>", "list": "<list>", "dictionary": "<dict>", "set": "<set>",
    "tuple": "<tuple>", "list_comprehension": "<list>", "dictionary_comprehension": "<dict>",
    "set_comprehension": "<set>", "generator_expression": "<lit>",
}
_CONTAINERS = {"list": "<list>", "tuple": "<tuple>", "set": "<set>", "dictionary": "<dict>",
               "expression_list": "<tuple>"}
_COMPREHENSIONS = {"list_comprehension": "<list>", "set_comprehension": "<set>", "dictionary_comprehension": "<dict>",
                   "generator_expression": "<lit>"}
NOT_NAMES = frozenset({"?", "<lit>", "<str>", "<bytes>", "<list>", "<dict>", "<set>", "<tuple>"})
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "setter", "getter", "deleter"})
# Decorators that leave a function a function (attributes on it are not worth guessing at).
_TRANSPARENT_DECORATORS = _PROPERTY_DECORATORS | {"staticmethod", "classmethod", "wraps", "abstractmethod",
                                                  "overload", "override", "contextmanager", "asynccontextmanager"}
_ANNOTATION_WRAPPERS = frozenset({"Optional", "Annotated", "ClassVar", "Final", "Type", "type"})
_CONDITIONAL = frozenset({"if_statement", "for_statement", "while_statement", "try_statement", "match_statement",
                          "conditional_expression", "boolean_operator", "except_clause", "case_clause"})
_BINARY_DUNDERS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
                   "@": "matmul", "<<": "lshift", ">>": "rshift", "&": "and", "|": "or", "^": "xor"}
_COMPARE_DUNDERS = {"<": "__lt__", ">": "__gt__", "<=": "__le__", ">=": "__ge__", "==": "__eq__", "!=": "__ne__"}
_UNARY_DUNDERS = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
# Methods of a container that store their argument(s): name → (index of the value argument, index of the key).
_STORE_METHODS = {"append": (0, None), "add": (0, None), "appendleft": (0, None), "insert": (1, None),
                  "setdefault": (1, 0), "put": (0, None), "push": (0, None)}
_LANGUAGE = TSLanguage(tree_sitter_python.language())
_PARSER = Parser(_LANGUAGE)
_LAMBDAS = Query(_LANGUAGE, "(lambda) @lambda")


def _string_value(node: Node) -> str | None:
    """Content of a plain string literal, None for f-strings / concatenations / anything else."""
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if any(c.type != "string_content" for c in parts):
        return None
    return "".join(_text(c) for c in parts)


def _literal_key(node: Node | None) -> str:
    """`repr` of a subscript or dict key that is an int or plain str literal, "" otherwise."""
    if node is None:
        return ""
    if node.type == "integer":
        try:
            return repr(int(_text(node), 0))
        except ValueError:
            return ""
    if node.type == "unary_operator" and _text(node.child_by_field_name("operator")) == "-":
        inner = _literal_key(node.child_by_field_name("argument"))
        return repr(-int(inner)) if inner.isdigit() else ""
    value = _string_value(node)
    return repr(value) if value is not None else ""


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
        head_chain = _plain_chain(head)
        if head_chain and head_chain[-1] in _ANNOTATION_WRAPPERS | {"Union"}:
            args = [c for c in node.named_children[1:] if c.type not in ("comment",)]
            while len(args) == 1 and args[0].type in ("type_parameter", "expression_list"):
                args = list(args[0].named_children)
            for arg in args:
                chain = type_chain(arg)
                if chain not in ((), ("None",)):
                    return chain
            return ()
        return head_chain if head_chain[0] not in NOT_NAMES else ()
    chain = _plain_chain(node)
    return chain if chain[0] not in NOT_NAMES and "()" not in chain and not any(s[0] == "[" for s in chain) else ()


_SEQUENCES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "set",
                        "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet", "tuple", "Tuple", "deque",
                        "Deque", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Reversible"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict",
                       "ChainMap", "Counter"})


def element_type_chain(node: Node | None) -> Chain:
    """The class of the elements an annotation names: `list[A]`, `Sequence[A]`, `dict[str, A]` (the values),
    `Optional[list[A]]`; () when it is not a container of a class."""
    if node is None:
        return ()
    if node.type == "type" and node.named_child_count == 1:
        return element_type_chain(node.named_children[0])
    if node.type == "binary_operator":
        return element_type_chain(node.child_by_field_name("left")) or element_type_chain(
            node.child_by_field_name("right"))
    if node.type not in ("generic_type", "subscript"):
        return ()
    head = node.named_children[0] if node.type == "generic_type" else node.child_by_field_name("value")
    name = _plain_chain(head)[-1]
    args = [c for c in node.named_children[1:] if c.type != "comment"]
    while len(args) == 1 and args[0].type in ("type_parameter", "expression_list"):
        args = list(args[0].named_children)
    if name in ("Optional", "Union", "Annotated", "Final", "ClassVar"):
        return next((chain for chain in map(element_type_chain, args) if chain), ())
    if name in _SEQUENCES and args:
        return type_chain(args[0])
    if name in _MAPPINGS and len(args) >= 2:
        return type_chain(args[1])
    return ()


def _plain_chain(node: Node | None) -> Chain:
    """The chain of a dotted name (annotations, decorators' names): no lambdas, no containers."""
    suffix: list[str] = []
    while node is not None:
        if node.type == "identifier":
            return (_text(node), *reversed(suffix))
        if node.type == "attribute":
            suffix.append(_text(node.child_by_field_name("attribute")))
            node = node.child_by_field_name("object")
        elif node.type == "call":
            suffix.append("()")
            node = node.child_by_field_name("function")
        elif node.type == "subscript":
            suffix.append(UNKNOWN_KEY)
            node = node.child_by_field_name("value")
        elif node.type in ("parenthesized_expression", "type") and node.named_child_count == 1:
            node = node.named_children[0]
        else:
            break
    return ("?", *reversed(suffix))


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
        self.items: list[Binding] = []
        self.bases: list[tuple[Chain, int]] = []
        self.attrs: list[Binding] = []
        self.returns: list[Chain] = []
        self.return_args: list[tuple[Arg, ...]] = []
        self.return_type: Chain = ()
        self.wrapped = False
        self.yields: list[Chain] = []
        self.fixture = ""
        self.fixture_decorator: Chain = ()
        self.params: list[Param] = []
        self.decorators: tuple[Chain, ...] = ()
        self.decorator_args: tuple[tuple[Arg, ...], ...] = ()
        self.method = ""
        self.stub = False  # an `@overload` stub: its signature goes to the implementation, it is no scope itself
        self.overloads: list[Overload] = []
        self.self_name = ""  # methods: name of the first parameter bound to the instance / class
        self.cls: _ScopeBuilder | None = None  # methods: the class they belong to
        self.cond = 0  # > 0 while inside a conditional part of the scope's code
        self.synthetic = 0  # counter for `<cN>` names
        self.declared: dict[str, str] = {}  # names declared `global` / `nonlocal` → which of the two
        self.seen: set[tuple] = set()  # implicit / attribute sites already recorded

    def freeze(self) -> Scope:
        return Scope(self.qname, self.kind, self.parent, bindings=tuple(self.bindings), bases=tuple(self.bases),
                     attrs=tuple(self.attrs), returns=tuple(self.returns), return_type=self.return_type,
                     wrapped=self.wrapped, yields=tuple(self.yields), fixture=self.fixture,
                     fixture_decorator=self.fixture_decorator, params=tuple(self.params), decorators=self.decorators,
                     decorator_args=self.decorator_args, method=self.method, return_args=tuple(self.return_args),
                     items=tuple(self.items), overloads=tuple(self.overloads))


class _Walker:
    """One pass over the tree collecting symbols and facts."""

    def __init__(self, module: str, is_package: bool, lambda_names: dict[int, str] | None = None) -> None:
        self.module, self.is_package = module, is_package
        self.lambda_names = lambda_names or {}  # start byte of each lambda → `<lambdaN>`
        self.symbols: list[Symbol] = []
        self.seen_symbols: set[str] = set()
        self.scopes: list[_ScopeBuilder] = []
        self.stub_symbols: dict[str, Symbol] = {}  # `@overload` stubs' symbols, used when no implementation follows
        self.by_qname: dict[str, _ScopeBuilder] = {}
        self.imports: list[Import] = []
        self.type_checking = 0  # > 0 inside the body of `if TYPE_CHECKING:`
        self.calls: list[Call] = []
        self.roots: dict[tuple[int, int, str], str] = {}  # container literal node → its root (see `container`)
        self.chains_memo: dict[int, Chain] = {}  # node id → its chain

    # -- helpers
    def new_scope(self, qname: str, kind: str, parent: str) -> _ScopeBuilder:
        scope = _ScopeBuilder(qname, kind, parent)
        self.scopes.append(scope)
        self.by_qname.setdefault(qname, scope)
        return scope

    def scopes_without_stubs(self) -> list[_ScopeBuilder]:
        """The scopes, each run of `@overload` stubs folded into the implementation that follows it (stubs with
        none after them, as in a Protocol or an `if TYPE_CHECKING:` block, stay as they are)."""
        stubs: dict[str, list[_ScopeBuilder]] = {}
        for scope in self.scopes:
            if scope.stub:
                stubs.setdefault(scope.qname, []).append(scope)
            elif scope.qname in stubs:
                scope.overloads = [Overload(tuple(s.params), s.return_type) for s in stubs.pop(scope.qname)]
        left = {id(s) for group in stubs.values() for s in group}
        return [s for s in self.scopes if not s.stub or id(s) in left]

    def is_overload(self, chain: Chain) -> bool:
        """`@overload`, `@typing.overload`, `@t.overload` with the name imported from typing (or typing_extensions):
        a project's own `overload` decorator is an ordinary one."""
        modules = ("typing", "typing_extensions")
        if chain == ("overload",):
            return any(i.module in modules and i.name == "overload" and i.alias == "overload" for i in self.imports)
        return len(chain) == 2 and chain[1] == "overload" and any(
            i.module in modules and not i.name and i.alias == chain[0] for i in self.imports)

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

    def bind(self, scope: _ScopeBuilder, binding: Binding) -> None:
        """Add a binding where Python puts it: the module for a name declared `global` in `scope`, the enclosing
        function for one declared `nonlocal` (as an alternative there: it runs whenever `scope` is called)."""
        declared = scope.declared.get(binding.name)
        if declared:
            parent = self.by_qname.get(scope.parent) if declared == "nonlocal" else None
            target = parent if parent is not None else self.scopes[0]
            target.bindings.append(replace(binding, scope=binding.scope or scope.qname, cond=True))
        else:
            scope.bindings.append(replace(binding, cond=True) if scope.cond and not binding.cond else binding)

    def add_item(self, scope: _ScopeBuilder, container: str, chain: Chain, key: str, line: int) -> None:
        scope.items.append(Binding(container, "item", chain, line, key=key, cond=scope.cond > 0))

    def synthetic(self, scope: _ScopeBuilder) -> str:
        scope.synthetic += 1
        return f"<c{scope.synthetic}>"

    def implicit(self, scope: _ScopeBuilder, chain: Chain, dunder: str, line: int, alt: str = "") -> None:
        if chain[0] in NOT_NAMES:
            return
        key = (chain, dunder)
        if key not in scope.seen:
            scope.seen.add(key)
            self.calls.append(Call(scope.qname, (*chain, dunder), line, kind="implicit", alt=alt))

    def attribute_access(self, scope: _ScopeBuilder, chain: Chain, line: int, store: bool = False) -> None:
        """An attribute read (or, with `store`, written): a property, a descriptor or `__getattr__` /
        `__setattr__` may run there."""
        if chain[0] in NOT_NAMES or len(chain) < 2:
            return
        key = ("attr", chain, store)
        if key not in scope.seen:
            scope.seen.add(key)
            self.calls.append(Call(scope.qname, chain, line, kind="attr", literal="store" if store else ""))

    # -- expressions as chains
    def chain(self, node: Node | None, scope: _ScopeBuilder) -> Chain:
        """The chain of an expression used as a value (see facts.py): names, attributes, calls, subscripts, and
        roots for literals, lambdas and container literals holding something kg tracks (memoized per node: the walk
        asks for most expressions more than once)."""
        if node is None:
            return ("?",)
        found = self.chains_memo.get(node.id)
        if found is None:
            found = self.chains_memo[node.id] = self._chain(node, scope)
        return found

    def _chain(self, node: Node | None, scope: _ScopeBuilder) -> Chain:
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
                keys = node.children_by_field_name("subscript")
                suffix.append(subscript(_literal_key(keys[0])) if len(keys) == 1 else UNKNOWN_KEY)
                node = node.child_by_field_name("value")
            elif t in ("parenthesized_expression", "await", "type") and node.named_child_count == 1:
                node = node.named_children[0]
            elif t == "lambda":
                return (self.lambda_name(node, scope), *reversed(suffix))
            elif t in _CONTAINERS or t in _COMPREHENSIONS:
                return (self.container(node, scope), *reversed(suffix))
            elif t in ("string", "concatenated_string"):
                first = node.children[0] if node.child_count else None
                prefix = (first.text or b"") if first is not None and first.type == "string_start" else b""
                return ("<bytes>" if b"b" in prefix.lower() else "<str>", *reversed(suffix))
            elif t in _LITERAL_ROOTS:
                return (_LITERAL_ROOTS[t], *reversed(suffix))
            elif t == "named_expression":
                node = node.child_by_field_name("value")
            else:
                break
        return ("?", *reversed(suffix))

    def container(self, node: Node, scope: _ScopeBuilder, name: str = "") -> str:
        """The root for a container literal. When it holds something kg tracks, its elements (keyed by position or
        literal dict key) become items of `name` (the variable it is assigned to) or of a synthetic `<cN>` name;
        the root returned is then the builtin type's root for a variable, `<cN>` otherwise. A literal holding
        nothing kg tracks is just its type's root."""
        memo = (node.start_byte, node.end_byte, node.type)
        if memo in self.roots:
            return self.roots[memo]
        kind = _CONTAINERS.get(node.type) or _COMPREHENSIONS[node.type]
        line = _line(node)
        elements: list[tuple[Chain, str]] = []
        if node.type in _COMPREHENSIONS:  # its `for` targets are bound when the traversal reaches it
            body = node.child_by_field_name("body")
            if body is not None and body.type == "pair":
                body = body.child_by_field_name("value")
            elements = [(c, "") for c in self.chains(body, scope)]
        else:
            for index, child in enumerate(c for c in node.named_children if c.type != "comment"):
                if child.type == "pair":
                    key = _literal_key(child.child_by_field_name("key"))
                    elements += [(c, key) for c in self.chains(child.child_by_field_name("value"), scope)]
                elif child.type in ("list_splat", "dictionary_splat"):
                    inner = child.named_children[0] if child.named_child_count else None
                    elements.append(((*self.chain(inner, scope), UNKNOWN_KEY), ""))
                else:
                    key = repr(index) if kind in ("<tuple>", "<list>") else ""
                    elements += [(c, key) for c in self.chains(child, scope)]
        elements = [(c, k) for c, k in elements if c[0] not in NOT_NAMES or len(c) > 1 and c[0] != "?"]
        root = kind
        if elements:
            holder = name or self.synthetic(scope)
            if not name:
                scope.bindings.append(Binding(holder, "alias", (kind,), line))
                root = holder
            for chain, key in elements:
                self.add_item(scope, holder, chain, key, line)
        self.roots[memo] = root
        return root

    def chains(self, node: Node | None, scope: _ScopeBuilder) -> list[Chain]:
        """Every value an expression may have: both arms of `a if c else b`, both sides of `a or b`."""
        if node is None:
            return []
        if node.type == "conditional_expression":
            values = [c for c in node.named_children]
            return [c for v in (values[0], values[2] if len(values) > 2 else None) for c in self.chains(v, scope)]
        if node.type == "boolean_operator":
            return [*self.chains(node.child_by_field_name("left"), scope),
                    *self.chains(node.child_by_field_name("right"), scope)]
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.chains(node.named_children[0], scope)
        return [self.chain(node, scope)]

    def value_chain(self, node: Node | None, scope: _ScopeBuilder) -> Chain:
        """One chain for an expression of possibly several values (an argument, a default): alternatives get a
        synthetic name bound to each of them, and so does a call (bound to its result with its own arguments, so
        `cast(T, update_wrapper(w, f))` is w)."""
        if node is not None and node.type == "call":
            args = node.child_by_field_name("arguments")
            if args is not None and args.type == "argument_list" and args.named_child_count:
                name = self.synthetic(scope)
                scope.bindings.append(Binding(name, "call", self.chain(node.child_by_field_name("function"), scope),
                                              _line(node), args=self.arguments(args, scope)))
                return (name,)
        values = self.chains(node, scope)
        if len(values) == 1:
            return values[0]
        if not values:
            return ("?",)
        name = self.synthetic(scope)
        for chain in values:
            scope.bindings.append(Binding(name, "alias", chain, _line(node), cond=True))
        return (name,)

    def lambda_name(self, node: Node, scope: _ScopeBuilder) -> str:
        """The name of a lambda in its scope; the lambda's own scope and symbol are made the first time."""
        name = self.lambda_names.get(node.start_byte, f"<lambda@{node.start_byte}>")
        qname = f"{scope.qname}.{name}" if scope.qname else name
        if qname in self.by_qname:
            return name
        self.add_symbol(Symbol(qname, name, "function", _line(node), node.end_point[0] + 1,
                               scope.qname or self.module, " ".join(_text(node).split())[:120]))
        scope.bindings.append(Binding(name, "func", (qname,), _line(node)))
        inner = self.new_scope(qname, "function", scope.qname)
        self.function_params(node.child_by_field_name("parameters"), scope, inner, in_class=False,
                             may_use_fixtures=False, method="")
        body = node.child_by_field_name("body")
        if body is not None:
            self.add_return(body, inner)
            self.visit(body, inner)
        return name

    def arguments(self, args: Node | None, scope: _ScopeBuilder) -> tuple[Arg, ...]:
        out: list[Arg] = []
        for arg in args.named_children if args is not None else ():
            if arg.type == "comment":
                continue
            if arg.type == "keyword_argument":
                out.append(Arg(self.value_chain(arg.child_by_field_name("value"), scope),
                               _text(arg.child_by_field_name("name"))))
            elif arg.type in ("list_splat", "dictionary_splat"):
                inner = arg.named_children[0] if arg.named_child_count else None
                out.append(Arg(self.value_chain(inner, scope), "*" if arg.type == "list_splat" else "**"))
            elif arg.type == "generator_expression":
                out.append(Arg(self.chain(arg, scope)))
            else:
                out.append(Arg(self.value_chain(arg, scope)))
        return tuple(out)

    # -- traversal
    def visit(self, node: Node, scope: _ScopeBuilder) -> None:
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node, scope)
        elif node.type in _CONDITIONAL:
            scope.cond += 1
            typing_only = node.type == "if_statement" and _type_checking(node.child_by_field_name("condition"))
            try:
                for child in node.named_children:
                    if typing_only and child == node.child_by_field_name("consequence"):
                        self.type_checking += 1
                        try:
                            self.visit(child, scope)
                        finally:
                            self.type_checking -= 1
                    else:
                        self.visit(child, scope)
            finally:
                scope.cond -= 1
        else:
            for child in node.named_children:
                self.visit(child, scope)

    def visit_children(self, node: Node | None, scope: _ScopeBuilder) -> None:
        if node is not None:
            for child in node.named_children:
                self.visit(child, scope)

    def visit_decorated(self, node: Node, scope: _ScopeBuilder) -> None:
        definition = node.child_by_field_name("definition")
        if definition is not None:
            self.visit_definition(definition, scope, node)
        else:
            self.visit_children(node, scope)

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
        chains = tuple(_plain_chain(d.named_children[0]) for d in outer.named_children
                       if d.type == "decorator" and d.named_child_count)
        stub = not is_class and any(self.is_overload(c) for c in chains)
        symbol = Symbol(qname, name, kind, outer.start_point[0] + 1, outer.end_point[0] + 1,
                        scope.qname or self.module, _signature(node, body), _docstring(body))
        if stub:  # the implementation is the definition; a stub is one only when no implementation follows
            self.stub_symbols.setdefault(qname, symbol)
        else:
            self.add_symbol(symbol)
        decorators = _decorator_names(outer)
        factory_args = self.visit_decorators(outer, scope, qname)
        bind_kind = "class" if is_class else ("prop" if decorators & _PROPERTY_DECORATORS else "func")
        self.bind(scope, Binding(name, bind_kind, (qname,), _line(node)))
        inner = self.new_scope(qname, "class" if is_class else "function", scope.qname)
        inner.stub = stub
        if not stub and self.by_qname[qname].stub:
            self.by_qname[qname] = inner  # nested code (`nonlocal`, `self`) belongs to the implementation
        inner.decorators = chains
        inner.decorator_args = factory_args if any(factory_args) else ()
        inner.wrapped = not is_class and bool(decorators - _TRANSPARENT_DECORATORS)
        if not is_class and scope.kind in ("module", "class") and "fixture" in decorators:
            inner.fixture, inner.fixture_decorator = _fixture_decorator(outer, name)
        if is_class:
            self.visit_class_header(node, scope, inner)
        else:
            self.visit_function_header(node, scope, inner, decorators)
        self.visit_children(body, inner)

    def visit_decorators(self, outer: Node, scope: _ScopeBuilder, qname: str) -> tuple[tuple[Arg, ...], ...]:
        """Each decorator is called with what the decorators below it made of the definition (`=qname@i`: the
        definition with its decorators from index i on applied; index len(decorators) is the bare definition).
        Returns, per decorator, the arguments of a decorator factory's call (`@app.route("/")`)."""
        found = [d.named_children[0] for d in outer.named_children if d.type == "decorator" and d.named_child_count]
        factory_args: list[tuple[Arg, ...]] = []
        for index, expr in enumerate(found):
            line = _line(expr)
            inner = expr.child_by_field_name("arguments") if expr.type == "call" else None
            callee_args = self.arguments(inner, scope) if inner is not None and inner.type == "argument_list" else ()
            factory_args.append(callee_args)
            if expr.type == "call":
                self.visit(expr, scope)
            chain = self.chain(expr, scope)
            if chain[0] in NOT_NAMES:
                continue
            if len(chain) == 2 and chain[1] in ("setter", "getter", "deleter") and self.is_property(scope, chain[0]):
                chain = ("property", chain[1])  # `@x.setter`: property.setter of the getter's property
                self.calls.append(Call(scope.qname, chain, line))
                continue
            argument = f"={qname}@{index + 1}" if index + 1 < len(found) else f"={qname}"
            self.calls.append(Call(scope.qname, chain, line, args=(Arg((argument,)),), callee_args=callee_args))
        return tuple(factory_args)

    @staticmethod
    def is_property(scope: _ScopeBuilder, name: str) -> bool:
        return any(b.name == name and b.kind == "prop" for b in scope.bindings)

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

    def visit_function_header(self, node: Node, scope: _ScopeBuilder, inner: _ScopeBuilder,
                              decorators: set[str]) -> None:
        inner.return_type = type_chain(node.child_by_field_name("return_type"))
        in_class = scope.kind == "class" and "staticmethod" not in decorators
        method = ("static" if "staticmethod" in decorators else "class" if "classmethod" in decorators else "")
        may_use_fixtures = bool(inner.fixture) or is_test(self.module, inner.qname, scope.kind)
        self.function_params(node.child_by_field_name("parameters"), scope, inner, in_class, may_use_fixtures,
                             method if scope.kind == "class" else "")

    def function_params(self, params: Node | None, scope: _ScopeBuilder, inner: _ScopeBuilder, in_class: bool,
                        may_use_fixtures: bool, method: str) -> None:
        inner.method = method
        first = True
        keyword_only = False
        positional_only: list[int] = []
        for param in params.named_children if params is not None else ():
            t = param.type
            if t == "positional_separator":
                positional_only = list(range(len(inner.params)))
                continue
            if t == "keyword_separator":
                keyword_only = True
                continue
            pname, annotation, star, default = _param_parts(param)
            elements = element_type_chain(_annotation_node(param))
            if default is not None:
                self.visit(default, scope)  # defaults run in the enclosing scope
            if not pname:
                continue
            kind = star or ("kw" if keyword_only else "arg")
            if star == "star":
                keyword_only = True
            default_chain = self.value_chain(default, scope) if default is not None else ()
            inner.params.append(Param(pname, kind, default_chain, annotation))
            line = _line(param)
            if first and in_class and not star:
                inner.self_name, inner.cls = pname, scope
                inner.bindings.append(Binding(pname, "cls" if method == "class" else "self", (scope.qname,), line))
            elif (annotation or elements) and not star:
                if elements:
                    inner.bindings.append(Binding(pname, "type", elements, line, key="[]"))
                if annotation:
                    inner.bindings.append(Binding(pname, "type", annotation, line))
                inner.bindings.append(Binding(pname, "param", (), line))
            else:
                inner.bindings.append(Binding(pname, "param", (), line))
                if may_use_fixtures and t == "identifier":  # pytest may fill it from a fixture
                    self.calls.append(Call(inner.qname, (pname,), line, kind="fixture"))
            first = False
        if positional_only:
            inner.params = [replace(p, kind="pos") if i in positional_only else p for i, p in enumerate(inner.params)]

    def visit_call(self, node: Node, scope: _ScopeBuilder) -> None:
        function = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        chain = self.chain(function, scope)
        literal, obj = "", ()
        positional = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        if chain[-1] == "getattr" and len(positional) >= 2:
            obj, literal = self.chain(positional[0], scope), _string_value(positional[1]) or ""
        elif chain[-1] in ("import_module", "__import__") and positional:
            literal = _string_value(positional[0]) or ""
        args = self.arguments(args_node, scope) if args_node is not None and args_node.type == "argument_list" else (
            (Arg(self.chain(args_node, scope)),) if args_node is not None else ())
        inner = function.child_by_field_name("arguments") if function is not None and function.type == "call" else None
        callee_args = self.arguments(inner, scope) if inner is not None and inner.type == "argument_list" else ()
        self.calls.append(Call(scope.qname, chain, _line(node), literal=literal, obj=obj, args=args,
                               callee_args=callee_args))
        if len(chain) >= 2 and chain[-1] in _STORE_METHODS:
            self.store_call(chain, args, scope, _line(node))
        if function is not None and function.type != "identifier":
            self.visit_callee(function, scope)
        if args_node is not None and args_node.type == "argument_list":
            for arg in args_node.named_children:
                self.visit(arg, scope)
        elif args_node is not None:
            self.visit(args_node, scope)

    def visit_callee(self, node: Node, scope: _ScopeBuilder) -> None:
        """What a callee expression runs besides the call itself: calls and subscripts inside it."""
        while node is not None and node.type in ("attribute", "parenthesized_expression"):
            node = node.child_by_field_name("object") if node.type == "attribute" else (
                node.named_children[0] if node.named_child_count else None)
        if node is not None and node.type not in ("identifier",):
            self.visit(node, scope)

    def store_call(self, chain: Chain, args: tuple[Arg, ...], scope: _ScopeBuilder, line: int) -> None:
        """`x.append(v)`, `self.x.add(v)`, `x.setdefault(k, v)`: v becomes an element of x."""
        value_index, key_index = _STORE_METHODS[chain[-1]]
        positional = [a for a in args if not a.name]
        if len(positional) <= value_index:
            return
        value = positional[value_index].chain
        key = ""
        if key_index is not None and positional[key_index].chain[0] == "<str>":
            key = ""  # the literal text of keys in calls is not kept: an unknown key
        target = chain[:-1]
        self.store(target, value, key, scope, line)

    def store(self, target: Chain, value: Chain, key: str, scope: _ScopeBuilder, line: int) -> None:
        """`value` becomes an element of the container `target` at `key`. A target that is itself an element
        (`x[k1][k2] = v`, `x[k].append(v)`, `x.setdefault(k, []).append(v)`) stores into a container nested in
        the variable's: the key gets one `*` per level (`*'k2'`)."""
        if value[0] in NOT_NAMES and (len(value) == 1 or value[0] == "?"):
            return
        depth = 0
        while len(target) > 1:
            if target[-1].startswith("["):
                target = target[:-1]
            elif len(target) > 2 and target[-1] == "()" and target[-2] in ("setdefault", "get"):
                target = target[:-2]
            else:
                break
            depth += 1
        key = "*" * depth + key
        if len(target) == 1 and target[0] not in NOT_NAMES:
            self.add_item(scope, target[0], value, key, line)
            return
        method = self.method_of(scope)
        if len(target) == 2 and method is not None and method.cls is not None and target[0] == method.self_name:
            method.cls.attrs.append(Binding(target[1], "item", value, line, scope.qname, key=key, cond=True))

    def visit_assignment(self, node: Node, scope: _ScopeBuilder) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        annotation = type_chain(node.child_by_field_name("type"))
        elements = element_type_chain(node.child_by_field_name("type"))
        line = _line(node)
        if right is not None:
            self.visit(right, scope)
        if left is None:
            return
        if left.type == "identifier":
            name = _text(left)
            if elements:
                self.bind(scope, Binding(name, "type", elements, line, key="[]"))
            if annotation:
                self.bind(scope, Binding(name, "type", annotation, line))
            for binding in self.value_bindings(name, right, line, scope):
                self.bind(scope, binding)
            if scope.kind == "module":
                self.add_symbol(Symbol(f"{self.module}.{name}" if self.module else name, name, "variable", line,
                                       node.end_point[0] + 1, self.module, " ".join(_text(node).split())[:120]))
        elif left.type == "attribute":
            self.bind_self_attribute(left, right, node, scope, annotation, elements)
            self.visit_target(left, scope)
        elif left.type == "subscript":
            self.visit_target(left, scope)
            target = self.chain(left.child_by_field_name("value"), scope)
            keys = left.children_by_field_name("subscript")
            key = _literal_key(keys[0]) if len(keys) == 1 else ""
            for value in self.chains(right, scope):
                self.store(target, value, key, scope, line)
        else:
            self.unpack(left, right, scope, line)

    def unpack(self, left: Node, right: Node | None, scope: _ScopeBuilder, line: int) -> None:
        """`a, (b, c) = value`: each name is the element of the value at its position; when the value is a tuple or
        list literal of the same shape, each name gets its own element directly."""
        targets = _targets(left)
        if right is not None and right.type in ("expression_list", "tuple", "list") and targets is not None:
            values = [c for c in right.named_children if c.type != "comment"]
            if len(values) == len(targets) and not any(v.type == "list_splat" for v in values):
                for target, value in zip(targets, values, strict=True):
                    if isinstance(target, str) and not target.startswith("*"):
                        for binding in self.value_bindings(target, value, line, scope):
                            self.bind(scope, binding)
                    elif isinstance(target, Node) and target.type == "attribute":
                        self.bind_self_attribute(target, value, target, scope, ())
                        self.visit_target(target, scope)
                    else:
                        self.unpack_chain(target, self.chain(value, scope), scope, line)
                return
        self.unpack_chain(targets if targets is not None else [], self.chain(right, scope), scope, line)

    def unpack_chain(self, targets: list | str | Node, value: Chain, scope: _ScopeBuilder, line: int) -> None:
        if isinstance(targets, str):
            name = targets.lstrip("*")
            chain = (*value, UNKNOWN_KEY) if targets.startswith("*") else value
            if name:
                self.bind(scope, Binding(name, "alias", chain if value[0] != "?" else ("?",), line))
            return
        if not isinstance(targets, list):
            if targets.type == "attribute":
                self.bind_self_chain(targets, value, scope, line)
            self.visit_target(targets, scope)
            return
        starred = any(isinstance(t, str) and t.startswith("*") for t in targets)
        for index, target in enumerate(targets):
            if isinstance(target, str) and target.startswith("*"):
                self.unpack_chain(target, value, scope, line)
            else:
                segment = subscript(repr(index)) if not starred else UNKNOWN_KEY
                self.unpack_chain(target, (*value, segment), scope, line)

    def visit_target(self, node: Node, scope: _ScopeBuilder) -> None:
        """An assignment or `del` target that is not a plain name: what its expression runs (`a.b[k] = v` reads
        `a.b`, calls `__setitem__` on it, and may run a property setter)."""
        if node.type == "attribute":
            deleting = node.parent is not None and node.parent.type == "delete_statement"
            self.attribute_access(scope, self.chain(node, scope), _line(node), store=not deleting)
            self.visit_callee(node, scope)
        elif node.type == "subscript":
            value = node.child_by_field_name("value")
            dunder = "__delitem__" if node.parent is not None and node.parent.type == "delete_statement" else (
                "__setitem__")
            self.implicit(scope, self.chain(value, scope), dunder, _line(node))
            self.visit(value, scope)
            for key in node.children_by_field_name("subscript"):
                self.visit(key, scope)
        else:
            self.visit(node, scope)

    def value_bindings(self, name: str, right: Node | None, line: int, scope: _ScopeBuilder) -> list[Binding]:
        """How `name = right` binds: alias, call result (with the call's arguments), container, literal."""
        if right is None:
            return []
        if right.type in ("conditional_expression", "boolean_operator"):
            return [b for part in _alternatives(right) for b in
                    (replace(x, cond=True) for x in self.value_bindings(name, part, line, scope))]
        if right.type == "assignment":  # a = b = value
            return self.value_bindings(name, right.child_by_field_name("right"), line, scope)
        if right.type in ("parenthesized_expression", "await") and right.named_child_count == 1:
            return self.value_bindings(name, right.named_children[0], line, scope)
        if right.type == "call":
            args = right.child_by_field_name("arguments")
            call_args = self.arguments(args, scope) if args is not None and args.type == "argument_list" else ()
            return [Binding(name, "call", self.chain(right.child_by_field_name("function"), scope), line,
                            args=call_args)]
        if right.type in _CONTAINERS or right.type in _COMPREHENSIONS:
            return [Binding(name, "alias", (self.container(right, scope, name),), line)]
        return [Binding(name, "alias", self.chain(right, scope), line)]

    def method_of(self, scope: _ScopeBuilder) -> _ScopeBuilder | None:
        """The method whose `self` is visible from `scope` (the scope itself or an enclosing function)."""
        current: _ScopeBuilder | None = scope
        while current is not None and current.kind == "function":
            if current.cls is not None:
                return current
            current = self.by_qname.get(current.parent)
        return None

    def bind_self_attribute(self, left: Node, right: Node | None, node: Node, scope: _ScopeBuilder,
                            annotation: Chain, elements: Chain = ()) -> None:
        method = self.method_of(scope)
        obj = left.child_by_field_name("object")
        if method is None or method.cls is None or obj is None or _text(obj) != method.self_name:
            return
        attr = _text(left.child_by_field_name("attribute"))
        line = _line(node)
        cond = True  # attributes set in different methods are alternatives
        if annotation:
            method.cls.attrs.append(Binding(attr, "type", annotation, line, scope.qname, cond=cond))
        if elements:
            method.cls.attrs.append(Binding(attr, "type", elements, line, scope.qname, key="[]", cond=cond))
        if right is not None and (right.type in _CONTAINERS or right.type in _COMPREHENSIONS):
            root = self.container(right, scope)
            if root.startswith("<c"):  # the elements live under the synthetic name in the method
                method.cls.attrs.append(Binding(attr, "alias", (root,), line, scope.qname, cond=cond))
                return
        for binding in self.value_bindings(attr, right, line, scope):
            method.cls.attrs.append(replace(binding, scope=scope.qname, cond=cond or binding.cond))

    def bind_self_chain(self, left: Node, value: Chain, scope: _ScopeBuilder, line: int) -> None:
        """`self.x` as an unpacking or loop target: the attribute is bound to `value` (a chain in `scope`)."""
        method = self.method_of(scope)
        obj = left.child_by_field_name("object")
        if method is None or method.cls is None or obj is None or _text(obj) != method.self_name:
            return
        attr = _text(left.child_by_field_name("attribute"))
        method.cls.attrs.append(Binding(attr, "alias", value, line, scope.qname, cond=True))

    def bind_iteration(self, node: Node, scope: _ScopeBuilder) -> None:
        """`for target in iterable` (statement or comprehension clause): the protocol calls and the targets."""
        iterable = node.child_by_field_name("right")
        chain = self.chain(iterable, scope)
        line = _line(node)
        is_async = any(c.type == "async" for c in node.children)
        first, then = ("__aiter__", "__anext__") if is_async else ("__iter__", "__next__")
        self.implicit(scope, chain, first, line)
        self.implicit(scope, (*chain, first, "()"), then, line)
        targets = _targets(node.child_by_field_name("left"))
        scope.cond += 1
        try:
            self.unpack_chain(targets if targets is not None else [], (*chain, ITER) if chain[0] != "?" else ("?",),
                              scope, line)
        finally:
            scope.cond -= 1

    def visit_for(self, node: Node, scope: _ScopeBuilder) -> None:
        self.visit(node.child_by_field_name("right"), scope)
        self.bind_iteration(node, scope)
        scope.cond += 1
        try:
            for field_name in ("body", "alternative"):
                child = node.child_by_field_name(field_name)
                if child is not None:
                    self.visit(child, scope)
        finally:
            scope.cond -= 1

    def visit_comprehension(self, node: Node, scope: _ScopeBuilder) -> None:
        for clause in node.named_children:
            if clause.type == "for_in_clause":
                self.visit(clause.child_by_field_name("right"), scope)
                self.bind_iteration(clause, scope)
        scope.cond += 1
        try:
            for child in node.named_children:
                if child.type == "for_in_clause":
                    continue
                self.visit(child, scope)
        finally:
            scope.cond -= 1

    def visit_with(self, node: Node, scope: _ScopeBuilder) -> None:
        is_async = any(c.type == "async" for c in node.children)
        enter, exit_ = ("__aenter__", "__aexit__") if is_async else ("__enter__", "__exit__")
        for clause in node.named_children:
            if clause.type != "with_clause":
                self.visit(clause, scope)
                continue
            for item in clause.named_children:
                value = item.child_by_field_name("value") if item.type == "with_item" else item
                if value is None:
                    continue
                alias = None
                if value.type == "as_pattern":
                    alias = value.child_by_field_name("alias")
                    value = value.named_children[0]
                self.visit(value, scope)
                chain = self.chain(value, scope)
                self.implicit(scope, chain, enter, _line(value))
                self.implicit(scope, chain, exit_, _line(value))
                if alias is not None:
                    targets = _targets(alias.named_children[0] if alias.named_child_count else alias)
                    self.unpack_chain(targets if targets is not None else [],
                                      (*chain, ENTER) if chain[0] != "?" else ("?",), scope, _line(value))

    def visit_except(self, node: Node, scope: _ScopeBuilder) -> None:
        scope.cond += 1
        try:
            for child in node.named_children:
                if child.type == "as_pattern":
                    alias = child.child_by_field_name("alias")
                    classes = child.named_children[0]
                    names = _targets(alias.named_children[0] if alias is not None and alias.named_child_count
                                     else alias)
                    members = classes.named_children if classes.type == "tuple" else [classes]
                    if isinstance(names, str):
                        for cls in members:
                            self.bind(scope, Binding(names, "call", self.chain(cls, scope), _line(child)))
                else:
                    self.visit(child, scope)
        finally:
            scope.cond -= 1

    def visit_return(self, node: Node, scope: _ScopeBuilder) -> None:
        if node.named_child_count:
            value = node.named_children[0]
            self.visit(value, scope)
            self.add_return(value, scope)

    def add_return(self, value: Node, scope: _ScopeBuilder) -> None:
        for part in _alternatives(value):
            chain = self.chain(part, scope)
            if chain[0] in NOT_NAMES and len(chain) == 1:
                continue
            args = part.child_by_field_name("arguments") if part.type == "call" else None
            scope.returns.append(chain)
            scope.return_args.append(self.arguments(args, scope) if args is not None and
                                     args.type == "argument_list" else ())

    def visit_yield(self, node: Node, scope: _ScopeBuilder) -> None:
        if any(c.type == "from" for c in node.children):  # `yield from g()`: what g yields
            inner = node.named_children[0] if node.named_child_count else None
            chain = self.chain(inner, scope)
            scope.yields.append((*chain, ITER) if chain[0] != "?" else ("?",))
        elif node.named_child_count:
            for part in _alternatives(node.named_children[0]):
                scope.yields.append(self.chain(part, scope))
        else:
            scope.yields.append(("<lit>",))
        self.visit_children(node, scope)

    def visit_raise(self, node: Node, scope: _ScopeBuilder) -> None:
        if node.named_child_count:
            exc = node.named_children[0]
            if exc.type in ("identifier", "attribute"):
                self.calls.append(Call(scope.qname, self.chain(exc, scope), _line(node), kind="raise"))
        self.visit_children(node, scope)

    def visit_binary(self, node: Node, scope: _ScopeBuilder) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = _text(node.child_by_field_name("operator"))
        name = _BINARY_DUNDERS.get(op)
        if name and left is not None and right is not None:
            left_chain = self.chain(left, scope)
            if left_chain[0] in NOT_NAMES:
                self.implicit(scope, self.chain(right, scope), f"__r{name}__", _line(node))
            else:
                self.implicit(scope, left_chain, f"__{name}__", _line(node))
        self.visit_children(node, scope)

    def visit_augmented(self, node: Node, scope: _ScopeBuilder) -> None:
        left = node.child_by_field_name("left")
        op = _text(node.child_by_field_name("operator")).rstrip("=")
        name = _BINARY_DUNDERS.get(op)
        if name and left is not None:
            self.implicit(scope, self.chain(left, scope), f"__i{name}__", _line(node), alt=f"__{name}__")
        if left is not None and left.type != "identifier":
            self.visit_target(left, scope)
        right = node.child_by_field_name("right")
        if right is not None:
            self.visit(right, scope)

    def visit_compare(self, node: Node, scope: _ScopeBuilder) -> None:
        operands = [c for c in node.named_children if c.type not in ("comment",)]
        operators = [_text(o).replace(" ", "") for o in node.children_by_field_name("operators")]
        line = _line(node)
        for index, op in enumerate(operators):
            if index + 1 >= len(operands):
                break
            left, right = operands[index], operands[index + 1]
            if op in ("in", "notin"):
                self.implicit(scope, self.chain(right, scope), "__contains__", line)
            elif op in _COMPARE_DUNDERS:
                alt = "__eq__" if op == "!=" else ""
                self.implicit(scope, self.chain(left, scope), _COMPARE_DUNDERS[op], line, alt=alt)
        for operand in operands:
            self.visit(operand, scope)

    def visit_unary(self, node: Node, scope: _ScopeBuilder) -> None:
        dunder = _UNARY_DUNDERS.get(_text(node.child_by_field_name("operator")))
        argument = node.child_by_field_name("argument")
        if dunder and argument is not None:
            self.implicit(scope, self.chain(argument, scope), dunder, _line(node))
        self.visit_children(node, scope)

    def visit_subscript(self, node: Node, scope: _ScopeBuilder) -> None:
        value = node.child_by_field_name("value")
        self.implicit(scope, self.chain(value, scope), "__getitem__", _line(node))
        if value is not None:
            self.visit(value, scope)
        for key in node.children_by_field_name("subscript"):
            self.visit(key, scope)

    def visit_attribute(self, node: Node, scope: _ScopeBuilder) -> None:
        self.attribute_access(scope, self.chain(node, scope), _line(node))
        self.visit_callee(node, scope)

    def visit_interpolation(self, node: Node, scope: _ScopeBuilder) -> None:
        expr = node.child_by_field_name("expression")
        if expr is not None:
            self.implicit(scope, self.chain(expr, scope), "__format__", _line(node), alt="__str__")
        self.visit_children(node, scope)

    def visit_lambda(self, node: Node, scope: _ScopeBuilder) -> None:
        self.lambda_name(node, scope)

    def visit_container(self, node: Node, scope: _ScopeBuilder) -> None:
        self.visit_children(node, scope)

    def visit_named_expression(self, node: Node, scope: _ScopeBuilder) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if value is not None:
            self.visit(value, scope)
        if name is not None and name.type == "identifier":
            for binding in self.value_bindings(_text(name), value, _line(node), scope):
                self.bind(scope, replace(binding, cond=True))

    def visit_global(self, node: Node, scope: _ScopeBuilder) -> None:
        if scope.kind == "function":
            kind = "nonlocal" if node.type == "nonlocal_statement" else "global"
            scope.declared.update((_text(c), kind) for c in node.named_children if c.type == "identifier")

    def visit_delete(self, node: Node, scope: _ScopeBuilder) -> None:
        for target in node.named_children:
            members = target.named_children if target.type in ("expression_list", "tuple") else [target]
            for member in members:
                if member.type in ("subscript", "attribute"):
                    self.visit_target(member, scope)

    def visit_import(self, node: Node, scope: _ScopeBuilder) -> None:
        line, cond, typed = _line(node), scope.cond > 0, self.type_checking > 0
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                module, alias = _text(item.child_by_field_name("name")), _text(item.child_by_field_name("alias"))
                self.imports.append(Import(scope.qname, module, "", alias, line, cond=cond, type_only=typed))
                continue
            module = _text(item)
            top = module.split(".")[0]
            if module == top:
                self.imports.append(Import(scope.qname, module, "", module, line, cond=cond, type_only=typed))
            else:  # `import a.b` binds `a`; the edge goes to `a.b`
                self.imports.append(Import(scope.qname, module, "", "", line, cond=cond, type_only=typed))
                self.imports.append(Import(scope.qname, top, "", top, line, edge=False, cond=True, type_only=typed))

    def visit_import_from(self, node: Node, scope: _ScopeBuilder) -> None:
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        module = self.absolute(module_node) if module_node.type == "relative_import" else _text(module_node)
        cond, typed = scope.cond > 0, self.type_checking > 0
        if any(c.type == "wildcard_import" for c in node.named_children):
            self.imports.append(Import(scope.qname, module, "*", "", _line(node), cond=cond, type_only=typed))
            return
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                name = _text(item.child_by_field_name("name"))
                alias = _text(item.child_by_field_name("alias"))
            else:
                name = alias = _text(item)
            self.imports.append(Import(scope.qname, module, name, alias, _line(node), cond=cond, type_only=typed))

    def visit_expression_statement(self, node: Node, scope: _ScopeBuilder) -> None:
        self.visit_children(node, scope)

    def visit_skip(self, node: Node, scope: _ScopeBuilder) -> None:
        """Annotations and type aliases: nothing runs that kg follows."""


def _alternatives(node: Node | None) -> list[Node]:
    """The nodes an expression's value may come from: both arms of `a if c else b`, both sides of `a or b`."""
    if node is None:
        return []
    if node.type == "conditional_expression":
        parts = node.named_children
        return [*_alternatives(parts[0]), *(_alternatives(parts[2]) if len(parts) > 2 else [])]
    if node.type == "boolean_operator":
        return [*_alternatives(node.child_by_field_name("left")), *_alternatives(node.child_by_field_name("right"))]
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _alternatives(node.named_children[0])
    return [node]


def _targets(node: Node | None) -> list | str | Node | None:
    """An assignment target as nested lists of names (`*rest` keeps its star); a node for targets that are not
    names (`a.b`, `x[0]`), None when there is nothing."""
    if node is None:
        return None
    t = node.type
    if t == "identifier":
        return _text(node)
    if t in ("list_splat_pattern", "list_splat"):
        inner = node.named_children[0] if node.named_child_count else None
        name = _targets(inner)
        return f"*{name}" if isinstance(name, str) else "*"
    if t in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list"):
        return [_targets(c) for c in node.named_children if c.type != "comment"]
    if t in ("parenthesized_expression", "as_pattern_target") and node.named_child_count == 1:
        return _targets(node.named_children[0])
    return node


def _decorator_names(outer: Node) -> set[str]:
    """Last names of the decorators of a (decorated) definition: `@functools.wraps(f)` → "wraps"."""
    names = set()
    for d in outer.named_children:
        if d.type == "decorator" and d.named_child_count:
            chain = [c for c in _plain_chain(d.named_children[0]) if c != "()"]
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
        chain = _plain_chain(expr)
        if chain[-1] == "fixture" and chain[0] not in NOT_NAMES and "()" not in chain and UNKNOWN_KEY not in chain:
            return requested, chain
    return "", ()


def _annotation_node(param: Node) -> Node | None:
    return param.child_by_field_name("type") if param.type in ("typed_parameter", "typed_default_parameter") else None


def _param_parts(param: Node) -> tuple[str, Chain, str, Node | None]:
    """(name, annotation chain, "star" / "dstar" / "", default value node) of one parameter node."""
    t = param.type
    if t == "identifier":
        return _text(param), (), "", None
    if t in ("list_splat_pattern", "dictionary_splat_pattern"):
        inner = next((c for c in param.named_children if c.type == "identifier"), None)
        return (_text(inner) if inner is not None else ""), (), "star" if t == "list_splat_pattern" else "dstar", None
    if t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
        annotation = type_chain(param.child_by_field_name("type"))
        default = param.child_by_field_name("value")
        name_node = param.child_by_field_name("name")
        if name_node is None:
            inner = next((c for c in param.named_children if c.type in ("identifier", "list_splat_pattern",
                                                                        "dictionary_splat_pattern")), None)
            if inner is None:
                return "", (), "", default
            if inner.type != "identifier":
                name, _, star, _ = _param_parts(inner)
                return name, annotation, star, default
            name_node = inner
        return _text(name_node), annotation, "", default
    return "", (), "", None


_HANDLERS = {
    "decorated_definition": _Walker.visit_decorated,
    "function_definition": _Walker.visit_function,
    "class_definition": _Walker.visit_class,
    "call": _Walker.visit_call,
    "assignment": _Walker.visit_assignment,
    "augmented_assignment": _Walker.visit_augmented,
    "for_statement": _Walker.visit_for,
    "list_comprehension": _Walker.visit_comprehension,
    "set_comprehension": _Walker.visit_comprehension,
    "dictionary_comprehension": _Walker.visit_comprehension,
    "generator_expression": _Walker.visit_comprehension,
    "with_statement": _Walker.visit_with,
    "except_clause": _Walker.visit_except,
    "return_statement": _Walker.visit_return,
    "yield": _Walker.visit_yield,
    "raise_statement": _Walker.visit_raise,
    "binary_operator": _Walker.visit_binary,
    "comparison_operator": _Walker.visit_compare,
    "unary_operator": _Walker.visit_unary,
    "subscript": _Walker.visit_subscript,
    "attribute": _Walker.visit_attribute,
    "interpolation": _Walker.visit_interpolation,
    "lambda": _Walker.visit_lambda,
    "named_expression": _Walker.visit_named_expression,
    "global_statement": _Walker.visit_global,
    "nonlocal_statement": _Walker.visit_global,
    "delete_statement": _Walker.visit_delete,
    "import_statement": _Walker.visit_import,
    "import_from_statement": _Walker.visit_import_from,
    "type": _Walker.visit_skip,
    "type_alias_statement": _Walker.visit_skip,
}


# ------------------------------------------------------------------------------------------- lambda names

# Where an expression inside a definition runs: in the definition's own scope only when it is in its body.
_SCOPE_NODES = {"function_definition": "body", "class_definition": "body", "lambda": "body"}


def _lambda_names(root: Node) -> dict[int, str]:
    """Start byte of every lambda → `<lambdaN>`: numbered from 1 in source order among the lambdas of the same
    scope (the function, class, lambda or module whose code evaluates it: a lambda in a default value or a
    decorator belongs to the scope around the definition)."""
    found = QueryCursor(_LAMBDAS).captures(root).get("lambda", [])
    by_scope: dict[int, list[int]] = {}
    for node in found:
        child, parent, holder = node, node.parent, -1
        while parent is not None:
            body_field = _SCOPE_NODES.get(parent.type)
            if body_field is not None and parent.child_by_field_name(body_field) == child:
                holder = parent.start_byte
                break
            child, parent = parent, parent.parent
        by_scope.setdefault(holder, []).append(node.start_byte)
    return {start: f"<lambda{number}>" for starts in by_scope.values()
            for number, start in enumerate(sorted(starts), start=1)}


def parse_module(path: str, module: str, source: bytes, lang: str = "python") -> ParsedFile:
    """The symbols and facts of one file; never raises (syntax errors are counted, what parsed is kept)."""
    is_package = PurePosixPath(path).name == "__init__.py"
    tree, gave_up = parse_within_budget(_PARSER, source)
    root = tree.root_node
    walker = _Walker(module, is_package, _lambda_names(root) if b"lambda" in source else None)
    top = walker.new_scope(module, "module", "")
    errors = _count_errors(root) or int(bool(gave_up))
    try:
        walker.visit_children(root, top)
    except RecursionError:
        errors += 1
    loc = count_lines(source)
    for symbol in walker.stub_symbols.values():
        walker.add_symbol(symbol)  # only stubs define it
    scopes = tuple(s.freeze() for s in walker.scopes_without_stubs())
    data = PyModule(is_package, scopes, tuple(walker.imports), tuple(walker.calls))
    return ParsedFile(path, lang, module, loc, tuple(walker.symbols), errors, data, gave_up)


def _type_checking(condition: Node | None) -> bool:
    """`if TYPE_CHECKING:` (also `typing.TYPE_CHECKING`, `t.TYPE_CHECKING`): its body only type checkers read."""
    if condition is None or condition.type not in ("identifier", "attribute"):
        return False
    return _text(condition).rsplit(".", 1)[-1] == "TYPE_CHECKING"
