"""Module and package names of Go files, and the names the language predeclares."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import PurePosixPath

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


def dotted_dir(path: str) -> str:
    return ".".join(p for p in posixpath.dirname(path).split("/") if p and p != ".")


def module_names(paths: Iterable[str]) -> dict[str, str]:
    """A Go file's module is its dotted path *with* the `.go` suffix (`cmd/app/main.go` → `cmd.app.main.go`):
    symbols are named by package (`cmd.app.main` is `func main`), so the file needs a name of its own."""
    return {path: ".".join(p for p in str(PurePosixPath(path)).split("/") if p) for path in paths}


def is_stdlib(import_path: str) -> bool:
    """Whether an import path is the standard library's (which never names an in-repo package)."""
    root = import_path.split("/", 1)[0]
    return root in STDLIB_ROOTS and "." not in root
