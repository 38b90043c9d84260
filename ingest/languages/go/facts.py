"""What parsing one Go file leaves for resolution: plain frozen dataclasses, picklable and free of tree-sitter, kept
in `ParsedFile.data` as a `GoData`."""

from __future__ import annotations

from dataclasses import dataclass


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
class GoVarType:
    scope: str  # func/method qname, or the package qname for a package-level variable
    name: str
    type: str  # "T" / "pkg.T", or "()x.F" for the first result of `x.F()`


@dataclass(frozen=True, slots=True)
class GoField:
    owner: str  # struct type qname
    name: str  # field name (an embedded type's own name for an embedded field)
    type: str  # type expression, as written in the declaring file


@dataclass(frozen=True, slots=True)
class GoData:
    package: str  # package qname used for the symbols of this file
    imports: tuple[GoImport, ...] = ()
    calls: tuple[GoCall, ...] = ()
    var_types: tuple[GoVarType, ...] = ()
    receivers: tuple[tuple[str, str], ...] = ()  # (method qname, receiver variable)
    locals: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (scope, its local names: params, :=, var)
    fields: tuple[GoField, ...] = ()
    embeds: tuple[tuple[str, str], ...] = ()  # (type qname, embedded type expr)
    results: tuple[tuple[str, str], ...] = ()  # (func qname, first result type expr)
