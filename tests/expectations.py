"""Fixture programs with their expected edges written down, shared by every language's resolution tests.

A case is a folder `tests/fixtures/<lang>/<case>/` with source files and an `expected.txt`, one expectation per line
(blank lines and `#` comments ignored):

    [!][KIND ]source -> target [resolution] [confidence] [[target_kind]] [@line]   KIND: CALLS (default), IMPORTS,
                                                                                   INHERITS
    [!]symbol qname [kind [start_line]]

`confidence` is a number (checked to 1e-6) or a bound such as `<1` or `<=0.5`; `@12` asks for the edge of line 12.
A leading `!` means no such edge/symbol may exist. Resolution, confidence and target kind are checked only when
given. A source file named
`x.py.txt` is parsed as `x.py` (code that must not compile stays out of the linters' way).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kg.ingest.facts import RESOLUTIONS, Edge, ParsedFile
from kg.ingest.languages import Language


def case_sources(case: Path, extensions: Sequence[str]) -> dict[str, bytes]:
    """Repo-relative path → bytes of the case's files with one of `extensions`."""
    sources = {}
    for file in sorted(case.rglob("*")):
        rel = file.relative_to(case).as_posix().removesuffix(".txt")
        if file.is_file() and Path(rel).suffix in extensions:
            sources[rel] = file.read_bytes()
    return sources


def load_case(case: Path, languages: Sequence[Language]) -> tuple[list[ParsedFile], list[Edge]]:
    """Parse every file of the case and resolve it against the others of its language."""
    parsed: list[ParsedFile] = []
    edges: list[Edge] = []
    for lang in languages:
        sources = case_sources(case, lang.extensions)
        names = lang.module_names(list(sources))
        files = [lang.parse(path, names[path], source) for path, source in sources.items()]
        project = {f.module: f for f in files}
        edges.extend(edge for f in files for edge in lang.resolve(f, project))
        parsed.extend(files)
    return parsed, edges


def _confidence_ok(spec: str, value: float) -> bool:
    for op, test in (("<=", float.__le__), ("<", float.__lt__), (">=", float.__ge__), (">", float.__gt__)):
        if spec.startswith(op):
            return test(value, float(spec[len(op) :]))
    return abs(value - float(spec)) < 1e-6


def _edge_matches(edge: Edge, kind: str, source: str, target: str, rest: list[str]) -> bool:
    if (edge.kind, edge.source, edge.target) != (kind, source, target):
        return False
    for token in rest:
        if token in RESOLUTIONS or token.isidentifier():
            ok = edge.resolution == token
        elif token.startswith("["):
            ok = edge.target_kind == token.strip("[]")
        elif token.startswith("@"):
            ok = edge.line == int(token[1:])
        else:
            ok = _confidence_ok(token, edge.confidence)
        if not ok:
            return False
    return True


def unmet(case: Path, parsed: list[ParsedFile], edges: list[Edge]) -> list[str]:
    """The lines of the case's expected.txt that the parse and the edges do not satisfy."""
    symbols = {s.qname: s for f in parsed for s in f.symbols}
    failures = []
    for raw in (case / "expected.txt").read_text().splitlines():
        line = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].strip()
        if not line:
            continue
        negate = line.startswith("!")
        words = line.lstrip("!").split()
        if words[0] == "symbol":
            sym = symbols.get(words[1])
            ok = sym is not None and (len(words) < 3 or sym.kind == words[2])
            ok = ok and (len(words) < 4 or sym.start_line == int(words[3]))
        else:
            kind = words.pop(0) if words[0] in ("CALLS", "IMPORTS", "INHERITS") else "CALLS"
            source, _arrow, target, *rest = words
            ok = any(_edge_matches(e, kind, source, target, rest) for e in edges)
        if ok == negate:
            failures.append(raw)
    return failures


def describe(edges: list[Edge]) -> str:
    return "\n".join(sorted(f"  {e.kind} {e.source} -> {e.target} [{e.target_kind}] {e.resolution} {e.confidence}"
                            f" @{e.line}" for e in edges))


def assert_case(case: Path, languages: Sequence[Language]) -> None:
    parsed, edges = load_case(case, languages)
    failures = unmet(case, parsed, edges)
    assert not failures, "unmet expectations:\n  " + "\n  ".join(failures) + "\nedges:\n" + describe(edges)
