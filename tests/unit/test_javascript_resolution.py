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
from kg.ingest.languages.javascript import JAVASCRIPT, LANGUAGES, TYPESCRIPT

from tests.expectations import assert_case

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CASES = sorted(p for family in ("javascript", "typescript") for p in (FIXTURES / family).iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path) -> None:
    assert_case(case, LANGUAGES)


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
