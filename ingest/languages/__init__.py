"""Languages kg understands, each one package (or module) in this package; `core` and `syntax` hold what they share.

Adding a language is one package here that exposes a module-level `LANGUAGE` object satisfying `Language` (or
`LANGUAGES` for a family), and one line in `_MODULES`; README.md beside it says how. The pipeline never changes.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Protocol

from kg.ingest.facts import Edge, ParsedFile


class Language(Protocol):
    name: str  # "python", "javascript", "typescript", "go"
    extensions: tuple[str, ...]  # (".py",)

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        """Dotted module name for each repo-relative posix path of this language (see ingest.facts)."""

    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        """Parse one file. Pure: the same bytes give the same result. Never raises on bad syntax."""

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        """Edges going out of `parsed`, given every parsed file of this language in the repo keyed by module name."""

    def dependencies(self, parsed: ParsedFile) -> set[str]:
        """Module names whose change can change this file's resolved edges (imports, base-class modules)."""


_MODULES = ("python", "javascript", "go")


@cache
def languages() -> tuple[Language, ...]:
    found = []
    for name in _MODULES:
        module = importlib.import_module(f"kg.ingest.languages.{name}")
        found.extend(getattr(module, "LANGUAGES", None) or [module.LANGUAGE])
    return tuple(found)


@cache
def _by_extension() -> dict[str, Language]:
    return {ext: lang for lang in languages() for ext in lang.extensions}


def language_for(path: str) -> Language | None:
    # PurePosixPath(path).suffix by hand: an update asks for every file of the tree, and pathlib cost ~1 s of it
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return _by_extension().get(name[dot:].lower() if 0 < dot < len(name) - 1 else "")


def by_name(name: str) -> Language:
    for lang in languages():
        if lang.name == name:
            return lang
    raise KeyError(name)
