"""JavaScript/TypeScript front end: module naming, symbols and resolution against fixture programs.

Every case is a folder under `tests/fixtures/{javascript,typescript}/<case>/` holding a small program and an
`expected.txt`, one expectation per line (blank lines and `#` comments ignored):

    [!][KIND ]source -> target [resolution [confidence]]    KIND is CALLS (default), IMPORTS or INHERITS
    [!]symbol qname [kind [start_line]]

A leading `!` means no such edge/symbol may exist. Resolution and confidence are checked only when given.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from ingest.facts import Edge, ParsedFile
from ingest.languages.javascript import JAVASCRIPT, LANGUAGES, TYPESCRIPT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CASES = sorted(p for family in ("javascript", "typescript") for p in (FIXTURES / family).iterdir() if p.is_dir())


def load_case(case: Path) -> tuple[list[ParsedFile], list[Edge]]:
    """Parse every file of a case (per language), resolve each against its language's project."""
    parsed: list[ParsedFile] = []
    edges: list[Edge] = []
    for lang in LANGUAGES:
        paths = sorted(p.relative_to(case).as_posix() for p in case.rglob("*") if p.suffix in lang.extensions)
        names = lang.module_names(paths)
        files = [lang.parse(path, names[path], (case / path).read_bytes()) for path in paths]
        project = {f.module: f for f in files}
        for f in files:
            edges.extend(lang.resolve(f, project))
        parsed.extend(files)
    return parsed, edges


def check_expectations(case: Path, parsed: list[ParsedFile], edges: list[Edge]) -> list[str]:
    symbols = {s.qname: s for f in parsed for s in f.symbols}
    failures = []
    for raw in (case / "expected.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
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
            ok = any(
                e.kind == kind
                and e.source == source
                and e.target == target
                and (len(rest) < 1 or e.resolution == rest[0])
                and (len(rest) < 2 or abs(e.confidence - float(rest[1])) < 1e-6)
                for e in edges
            )
        if ok == negate:
            failures.append(raw)
    return failures


def describe(edges: list[Edge]) -> str:
    return "\n".join(
        sorted(f"  {e.kind} {e.source} -> {e.target} [{e.target_kind}] {e.resolution} {e.confidence}" for e in edges)
    )


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path) -> None:
    parsed, edges = load_case(case)
    failures = check_expectations(case, parsed, edges)
    assert not failures, "unmet expectations:\n  " + "\n  ".join(failures) + "\nedges:\n" + describe(edges)


def test_module_names() -> None:
    names = JAVASCRIPT.module_names(["src/app.js", "src/lib/index.js", "index.js", "a/b.mjs", "a/b/index.js"])
    assert names == {
        "src/app.js": "src.app",
        "src/lib/index.js": "src.lib",
        "index.js": "index",
        "a/b.mjs": "a.b",
        "a/b/index.js": "a.b.index",
    }
    assert TYPESCRIPT.module_names(["x/types.d.ts", "x/y.tsx"]) == {"x/types.d.ts": "x.types", "x/y.tsx": "x.y"}


def test_languages_and_extensions() -> None:
    assert [lang.name for lang in LANGUAGES] == ["javascript", "typescript"]
    assert set(JAVASCRIPT.extensions) >= {".js", ".mjs", ".cjs", ".jsx"}
    assert set(TYPESCRIPT.extensions) >= {".ts", ".tsx"}


def test_symbols_kinds_qnames_lines() -> None:
    source = b"""class A extends B {
  static s() {}
  get g() { return 1 }
  #priv() {}
  field = () => 1
}
function outer() {
  function inner() {}
  const arrow = () => {}
}
const C = class {}
let counter = 0
var fe = function () {}
"""
    parsed = JAVASCRIPT.parse("m.js", "m", source)
    got = {(s.qname, s.kind, s.start_line, s.end_line, s.parent) for s in parsed.symbols}
    assert got == {
        ("m.A", "class", 1, 6, "m"),
        ("m.A.s", "method", 2, 2, "m.A"),
        ("m.A.g", "method", 3, 3, "m.A"),
        ("m.A.priv", "method", 4, 4, "m.A"),
        ("m.A.field", "method", 5, 5, "m.A"),
        ("m.outer", "function", 7, 10, "m"),
        ("m.outer.inner", "function", 8, 8, "m.outer"),
        ("m.outer.arrow", "function", 9, 9, "m.outer"),
        ("m.C", "class", 11, 11, "m"),
        ("m.counter", "variable", 12, 12, "m"),
        ("m.fe", "function", 13, 13, "m"),
    }
    assert parsed.syntax_errors == 0 and parsed.loc == 13


def test_syntax_errors_and_invalid_utf8_never_raise() -> None:
    broken = JAVASCRIPT.parse("b.js", "b", b"function ok() {}\nfunction (((\n\xff\xfe class {")
    assert broken.syntax_errors > 0
    assert "b.ok" in {s.qname for s in broken.symbols}
    assert TYPESCRIPT.parse("e.ts", "e", b"").symbols == ()
    assert TYPESCRIPT.parse("t.tsx", "t", b"const x = <div>{</div>").syntax_errors > 0


def test_parsed_file_is_picklable_and_pure() -> None:
    case = FIXTURES / "javascript" / "commonjs"
    source = (case / "app.js").read_bytes()
    first = JAVASCRIPT.parse("app.js", "app", source)
    again = pickle.loads(pickle.dumps(first))
    assert again == first and again.data == first.data == JAVASCRIPT.parse("app.js", "app", source).data


def test_dependencies() -> None:
    case = FIXTURES / "javascript" / "esm_imports"
    parsed = JAVASCRIPT.parse("main.js", "main", (case / "main.js").read_bytes())
    assert JAVASCRIPT.dependencies(parsed) == {"lib.math", "lib", "util", "nowhere"}
    index = JAVASCRIPT.parse("lib/index.js", "lib", (case / "lib" / "index.js").read_bytes())
    assert JAVASCRIPT.dependencies(index) == {"lib.math", "lib.strings"}
