"""Module names of JavaScript/TypeScript files and of the packages they import."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx")
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")


def strip_extension(path: str) -> str:
    for declaration in (".d.ts", ".d.mts", ".d.cts"):
        if path.endswith(declaration):
            return path[: -len(declaration)]
    return str(PurePosixPath(path).with_suffix(""))


def _dotted(stem: str) -> str:
    return ".".join(part for part in stem.split("/") if part and part != ".")


def module_name_for(path: str) -> str:
    stem = strip_extension(path)
    parts = stem.split("/")
    if parts[-1] == "index" and len(parts) > 1:
        parts = parts[:-1]
    return _dotted("/".join(parts))


def module_names(paths: Iterable[str]) -> dict[str, str]:
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


def external_name(spec: str) -> str:
    """The dotted name of a package import: `node:fs` → `fs`, `@scope/pkg/a/b` → `@scope/pkg.a.b`."""
    spec = spec.removeprefix("node:")
    if spec.startswith("@"):
        scope_pkg, _, rest = spec.partition("/")
        pkg, _, rest = rest.partition("/")
        head = f"{scope_pkg}/{pkg}"
        return ".".join([head, *[p for p in rest.split("/") if p]])
    return ".".join(p for p in spec.split("/") if p)
