"""What parsing one JavaScript/TypeScript file leaves for resolution: plain frozen dataclasses, picklable and free of
tree-sitter, kept in `ParsedFile.data` as a `JsData`."""

from __future__ import annotations

from dataclasses import dataclass


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
    owners: tuple[tuple[str, str], ...] = ()  # (function qname, class/object qname `this` refers to in it)
    locals: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (function qname, its parameter and local names)
