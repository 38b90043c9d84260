"""JavaScript and TypeScript front end: `LANGUAGES = [JAVASCRIPT, TYPESCRIPT]`.

Both languages share one implementation; they differ in extensions and grammar (`.tsx` uses the tsx grammar, plain
JavaScript uses the javascript grammar, which understands JSX). The two are separate projects for resolution: a
TypeScript file importing a `.js` file of the same repository gets an `unresolved` module target.

Modules: `names` (module names of files and packages), `facts` (what a parse keeps), `extract` (phase 1),
`resolve` (phase 2); the rules every language shares are in `kg.ingest.languages.core`.

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

Phase 2, `resolve` (per file, against the whole project of one language): local/import names, `this.m()` (self /
inherited), `super`, constructors, typed variables (`inferred`), builtins and external packages, and finally
`name_only` candidates (see `resolve`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from kg.ingest.facts import Edge, ParsedFile
from kg.ingest.languages.javascript.facts import JsData
from kg.ingest.languages.javascript.names import JS_EXTENSIONS, TS_EXTENSIONS, module_name_for, module_names


class EcmaScript:
    """A `Language` for JavaScript or TypeScript (see the module docstring)."""

    def __init__(self, name: str, extensions: tuple[str, ...]) -> None:
        self.name = name
        self.extensions = extensions

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        return module_names(paths)

    # The walk and the resolver are imported when first used: an update that changed only Python files never
    # loads them (~10 ms of every one-shot `kg ingest`).
    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        from kg.ingest.languages.javascript.extract import parse

        grammar = "javascript" if self.name == "javascript" else ("tsx" if path.endswith(".tsx") else "typescript")
        return parse(self.name, grammar, path, module, source)

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        from kg.ingest.languages.javascript.resolve import resolve

        return resolve(parsed, project)

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
