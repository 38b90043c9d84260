"""Phase 2 for JavaScript and TypeScript, `resolve` (per file, against the whole project of one language).

A `_ProjectIndex` is built once per project mapping (`core.per_project`) with symbol, path, method-name and import
tables; lookups through exports, re-exports and inheritance chains are memoised in it. Each call shape is resolved by
the strongest rule that applies: local/import names, `this.m()` (self / inherited), `super`, constructors, typed
variables (`inferred`), builtins and external packages, and finally `name_only` candidates (`core.EdgeSet.name_only`).
Builtins and externals use resolution "import" (they are implicitly or explicitly imported names).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import NamedTuple

from kg.ingest.facts import Edge, ParsedFile, Symbol
from kg.ingest.languages.core import (
    ARGUMENT_CONFIDENCE,
    INFERRED_CONFIDENCE,
    MAX_CHAIN,
    EdgeSet,
    Method,
    Target,
    per_project,
)
from kg.ingest.languages.javascript.facts import Call, ClassInfo, Export, Import, JsData, VarType
from kg.ingest.languages.javascript.names import external_name, module_name_for, strip_extension

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
_PROBE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


class Named(NamedTuple):
    """What a name in a scope refers to, and how it was found (`local`, `import`)."""

    target: Target
    resolution: str


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
    var_types: dict[tuple[str, str], VarType] = field(default_factory=dict)  # (scope, name) -> first type fact
    memo_export: dict[tuple[str, str], Target | None] = field(default_factory=dict)
    memo_bases: dict[str, list[Target]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for module, parsed in self.project.items():
            data: JsData = parsed.data or JsData()
            path = parsed.path
            self.by_path[path] = module
            self.by_path.setdefault(strip_extension(path), module)
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
                self.var_types.setdefault((vt.scope, vt.name), vt)

    # -- modules and exports ----------------------------------------------------------------------------------------

    def resolve_specifier(self, from_module: str, spec: str) -> Target:
        if not spec.startswith("."):
            return Target(external_name(spec), "external")
        base = self.project[from_module].path if from_module in self.project else ""
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(base), spec))
        candidates = [stem]
        if PurePosixPath(stem).suffix in (".js", ".jsx", ".mjs", ".cjs"):
            candidates.append(str(PurePosixPath(stem).with_suffix("")))  # TS ESM imports './a.js' for './a.ts'
        for cand in candidates:
            if cand in self.by_path and cand == stem:
                return Target(self.by_path[cand], "module")
            for ext in _PROBE_EXTENSIONS:
                if cand + ext in self.by_path:
                    return Target(self.by_path[cand + ext], "module")
            for ext in _PROBE_EXTENSIONS:
                if f"{cand}/index{ext}" in self.by_path:
                    return Target(self.by_path[f"{cand}/index{ext}"], "module")
        return Target(module_name_for(stem.lstrip("./") or stem), "unresolved")

    def resolve_import(self, from_module: str, spec: str, imported: str, seen: frozenset = frozenset()) -> Target:
        module, kind = self.resolve_specifier(from_module, spec)
        if kind in ("external", "unresolved"):
            return Target(module, kind) if imported in ("*", "=", "default") else Target(f"{module}.{imported}", kind)
        if imported == "*":
            return Target(module, "module")
        return self.resolve_export(module, imported, seen) or Target(f"{module}.{imported}", "unresolved")

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
            return Target(module, "module")
        if f"{module}.{name}" in self.symbols:
            return Target(f"{module}.{name}", "symbol")
        for exp in table.get("*", ()):
            module2, kind = self.resolve_specifier(module, exp.specifier)
            if kind == "module":
                found = self.resolve_export(module2, name, seen)
                if found and (found.kind == "symbol" or found.name != module2):
                    return found
        return None

    def resolve_local(self, module: str, local: str, seen: frozenset = frozenset()) -> Target | None:
        if local == "*":
            return Target(module, "module")
        if f"{module}.{local}" in self.symbols:
            return Target(f"{module}.{local}", "symbol")
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

    def resolve_name(self, module: str, scope: str, name: str) -> Named | None:
        """What a bare name at `scope` refers to; None when it is a local variable or unknown."""
        for fn in self.scope_chain(scope, module):
            if f"{fn}.{name}" in self.symbols:
                return Named(Target(f"{fn}.{name}", "symbol"), "local")
            if name in self.locals.get(fn, ()):
                return None
        imp = self.bindings.get(module, {}).get(name)
        if imp is not None:
            return Named(self.resolve_import(module, imp.specifier, imp.imported), "import")
        if f"{module}.{name}" in self.symbols:
            return Named(Target(f"{module}.{name}", "symbol"), "local")
        if name in BUILTINS:
            return Named(Target(f"<builtin>.{name}", "builtin"), "import")
        return None

    def var_type(self, module: str, scope: str, name: str) -> VarType | None:
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
                return Target(".".join([qname, *rest[i:]]), kind)
            if kind == "module":
                found = self.resolve_export(qname, part)
                if found is None:
                    return None
                qname, kind = found
                continue
            method = self.lookup_method(qname, part)
            if method is None:
                return None
            qname, kind = method.target
        return Target(qname, kind)

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
                found.append(target.target)
        self.memo_bases[cls] = found
        return found

    def parent_of(self, qname: str, default: str) -> str:
        sym = self.symbols.get(qname)
        return sym.parent if sym is not None else default

    def resolve_dotted(self, module: str, scope: str, dotted: str) -> Named | None:
        head, *rest = dotted.split(".")
        named = self.resolve_name(module, scope, head)
        if named is None:
            return None
        target = self.member(named.target, rest) if rest else named.target
        return Named(target, named.resolution) if target else None

    def lookup_method(self, cls: str, name: str, depth: int = 0, seen: set[str] | None = None) -> Method | None:
        """The method `name` of class `cls` or of its first base (depth first) that has one."""
        seen = set() if seen is None else seen
        if depth > MAX_CHAIN or cls in seen:
            return None
        seen.add(cls)
        if f"{cls}.{name}" in self.symbols:
            return Method(Target(f"{cls}.{name}", "symbol"), depth)
        for base, kind in self.bases(cls):
            if kind in ("external", "builtin"):
                return Method(Target(f"{base}.{name}", kind), depth + 1)
            if kind == "symbol":
                found = self.lookup_method(base, name, depth + 1, seen)
                if found:
                    return found
        return None

    def constructor_of(self, cls: str) -> Target:
        """`A.constructor` when A defines one, else the class itself."""
        if f"{cls}.constructor" in self.symbols:
            return Target(f"{cls}.constructor", "symbol")
        return Target(cls, "symbol")

    def owner(self, module: str, scope: str) -> str | None:
        for fn in self.scope_chain(scope, module):
            if fn in self.owners:
                return self.owners[fn]
        return None


index_for = per_project(_ProjectIndex)


def resolve(parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
    return _Resolver(parsed, index_for(project)).run()


class _Resolver:
    """Turns the `JsData` of one file into edges using the project index."""

    def __init__(self, parsed: ParsedFile, index: _ProjectIndex) -> None:
        self.parsed = parsed
        self.module = parsed.module
        self.index = index
        self.data: JsData = parsed.data or JsData()
        self.edges = EdgeSet()

    def run(self) -> list[Edge]:
        for imp in self.data.imports:
            target = self.index.resolve_import(self.module, imp.specifier, imp.imported)
            self.edges.emit("IMPORTS", self.module, target, imp.line, "import")
        for cls in self.data.classes:
            for base in cls.bases:
                found = self.index.resolve_dotted(self.module, self.index.parent_of(cls.qname, self.module), base)
                if found:
                    self.edges.emit("INHERITS", cls.qname, found.target, cls.line, found.resolution)
        for call in self.data.calls:
            getattr(self, f"call_{call.kind}")(call)
        return self.edges.edges()

    def call(self, call: Call, target: Target, resolution: str, confidence: float = 1.0) -> None:
        self.edges.emit("CALLS", call.scope, target, call.line, resolution, confidence)

    def name_only(self, call: Call, name: str) -> None:
        # `xs.map()` is far more often Array.prototype.map than ours
        discount = BUILTIN_METHOD_DISCOUNT if name in BUILTIN_METHOD_NAMES else 1.0
        self.edges.name_only(call.scope, call.line, self.index.methods.get(name, ()), discount)

    def call_name(self, call: Call) -> None:
        found = self.index.resolve_name(self.module, call.scope, call.target) if "." not in call.target else None
        if found is None and "." in call.target:
            found = self.index.resolve_dotted(self.module, call.scope, call.target)
        if found:
            self.call(call, found.target, found.resolution)

    def call_member(self, call: Call) -> None:
        head, *rest = call.target.split(".")
        typed = self.index.var_type(self.module, call.scope, head) if head != "?" else None
        if typed and len(rest) == 1:
            cls = self.index.resolve_dotted(self.module, call.scope, typed.type)
            if cls and self.typed_call(call, cls.target, rest[0]):
                return
        named = self.index.resolve_name(self.module, call.scope, head) if head != "?" else None
        if named:
            target = self.index.member(named.target, rest)
            if target:
                self.call(call, target, named.resolution)
                return
        self.name_only(call, rest[-1])

    def typed_call(self, call: Call, cls: Target, method: str) -> bool:
        if cls.kind in ("external", "builtin"):
            self.call(call, Target(f"{cls.name}.{method}", cls.kind), "inferred", INFERRED_CONFIDENCE)
            return True
        found = self.index.lookup_method(cls.name, method) if cls.kind == "symbol" else None
        if found:
            self.call(call, found.target, "inferred", INFERRED_CONFIDENCE)
            return True
        return False

    def call_this(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        parts = call.target.split(".")
        if owner and len(parts) == 1:
            found = self.index.lookup_method(owner, parts[0])
            if found:
                self.call(call, found.target, "self" if found.depth == 0 else "inherited")
                return
        if owner and len(parts) == 2:
            typed = self.index.var_types.get((owner, f"this.{parts[0]}"))
            cls = (
                self.index.resolve_dotted(self.index.module_of.get(owner, self.module), owner, typed.type)
                if typed
                else None
            )
            if cls and self.typed_call(call, cls.target, parts[1]):
                return
        self.name_only(call, parts[-1])

    def call_super(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        name = call.target.split(".")[-1]
        for base in self.index.bases(owner) if owner else ():
            if base.kind == "symbol":
                found = self.index.lookup_method(base.name, name)
                if found:
                    self.call(call, found.target, "super")
                    return
            elif base.kind in ("external", "builtin"):
                self.call(call, Target(f"{base.name}.{name}", base.kind), "super")
                return

    def call_super_ctor(self, call: Call) -> None:
        owner = self.index.owner(self.module, call.scope)
        bases = self.index.bases(owner) if owner else []
        if bases:
            base = bases[0]
            target = self.index.constructor_of(base.name) if base.kind == "symbol" else base
            self.call(call, target, "super")

    def call_new(self, call: Call) -> None:
        found = self.index.resolve_dotted(self.module, call.scope, call.target)
        if found is None:
            return
        target, resolution = found
        sym = self.index.symbols.get(target.name) if target.kind == "symbol" else None
        if sym is not None and sym.kind == "class":
            self.call(call, self.index.constructor_of(target.name), "constructor")
        elif sym is not None:
            self.call(call, target, "constructor")
        else:
            self.call(call, target, resolution)

    def call_ref(self, call: Call) -> None:
        head, *rest = call.target.split(".")
        if head == "this":
            owner = self.index.owner(self.module, call.scope)
            found = self.index.lookup_method(owner, rest[0]) if owner and len(rest) == 1 else None
            target = found.target if found else None
        else:
            named = self.index.resolve_dotted(self.module, call.scope, call.target)
            target = named.target if named else None
        sym = self.index.symbols.get(target.name) if target and target.kind == "symbol" else None
        if target is not None and sym is not None and sym.kind in ("function", "method"):
            self.call(call, target, "inferred", ARGUMENT_CONFIDENCE)

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
        self.call(call, Target(call.target, "unresolved"), "dynamic", DYNAMIC_CONFIDENCE)

    def call_eval(self, call: Call) -> None:
        self.call(call, Target(f"<builtin>.{call.target}", "builtin"), "dynamic", DYNAMIC_CONFIDENCE)

    def call_dyn_import(self, call: Call) -> None:
        target = Target(call.target, "unresolved")
        self.edges.emit("IMPORTS", self.module, target, call.line, "dynamic", DYNAMIC_CONFIDENCE)
