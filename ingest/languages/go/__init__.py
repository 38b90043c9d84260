"""Go front end: `LANGUAGE`.

Naming. A Go package spans the files of one directory, so two names are used:
- the Module node of a file is its dotted path without extension (`pkg/server/handler.go` → `pkg.server.handler`);
- symbols are qualified by the *package*: the dotted directory (`pkg.server.Handle`, methods under their receiver
  type, `pkg.server.Server.Start`). Files at the repository root use their `package` clause name instead.
Top-level symbols have the file's module as `parent` (so the containment tree stays file-based); methods have
their receiver type's qname as parent even when the type is declared in another file of the package.

Phase 1, `parse` (pure): one walk collects funcs, methods, types (struct/interface/other named types and aliases,
kind "class"), package-level vars/consts, imports, call sites attributed to the enclosing func/method (function
literals belong to it), and type facts: receivers, parameters, `var x T`, `x := T{}` / `&T{}` / `new(T)` /
`x := NewT()` (through the callee's first result type, resolved later), struct field types and embedded types.

Phase 2, `resolve`: imports to in-repo packages or external import paths; calls to same-package functions, imported
functions, methods on receivers and on variables of known type, builtins, else `name_only` candidates (see `resolve`).

Modules: `names` (module and package names), `facts` (what a parse keeps), `extract` (phase 1), `resolve` (phase 2);
the rules every language shares are in `kg.ingest.languages.core`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kg.ingest.facts import Edge, ParsedFile
from kg.ingest.languages.go.facts import GoData
from kg.ingest.languages.go.names import is_stdlib, module_names


class Go:
    name = "go"
    extensions = (".go",)

    def module_names(self, paths: Iterable[str]) -> dict[str, str]:
        return module_names(paths)

    # The walk and the resolver are imported when first used (see the JavaScript front end).
    def parse(self, path: str, module: str, source: bytes) -> ParsedFile:
        from kg.ingest.languages.go.extract import parse

        return parse(path, module, source)

    def resolve(self, parsed: ParsedFile, project: Mapping[str, ParsedFile]) -> list[Edge]:
        from kg.ingest.languages.go.resolve import resolve

        return resolve(parsed, project)

    def provides(self, parsed: ParsedFile) -> set[str]:
        """Names other files depend on this one by: its package (see `dependencies`)."""
        data: GoData = parsed.data or GoData(package="")
        return {parsed.module, data.package}

    def dependencies(self, parsed: ParsedFile) -> set[str]:
        """Package qnames (dotted directories), not file modules: this file's own package and, for each import,
        every dotted suffix of its path (one of which is the in-repo package, if any). A change to any file of one of
        these packages can change the edges (`provides` maps a file to its package)."""
        data: GoData = parsed.data or GoData(package="")
        deps = {data.package}
        for imp in data.imports:
            if is_stdlib(imp.path):
                continue
            parts = imp.path.split("/")
            deps.update(".".join(parts[i:]) for i in range(len(parts)))
        return deps


LANGUAGE = Go()
