"""Go front end: naming, symbols and resolution against fixture programs under `tests/fixtures/go/<case>/`.

Each case's `expected.txt` lists the edges and symbols it must (or, with `!`, must not) have: tests/expectations.py.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from kg.ingest.languages.go import LANGUAGE as GO

from tests.expectations import assert_case

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "go"
CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case: Path) -> None:
    assert_case(case, [GO])


def test_module_names_and_package_qnames() -> None:
    assert GO.module_names(["pkg/server/handler.go", "main.go"]) == {
        "pkg/server/handler.go": "pkg.server.handler.go",
        "main.go": "main.go",
    }
    parsed = GO.parse("pkg/server/handler.go", "pkg.server.handler.go", b"package server\nfunc Handle() {}\n")
    assert [(s.qname, s.parent) for s in parsed.symbols] == [("pkg.server.Handle", "pkg.server.handler.go")]
    root = GO.parse("app.go", "app", b"package tool\nfunc Run() {}\n")
    assert [s.qname for s in root.symbols] == ["tool.Run"]  # root files use the package clause


def test_symbols_kinds_and_lines() -> None:
    source = b"""package p

type S struct{ x int }
type I interface{ M() }
type Alias = S

var (
	a, b = 1, 2
	_    = 3
)

const C = "c"

func F[T any](v T) T { return v }

func (s *S) M() {}
"""
    parsed = GO.parse("p/p.go", "p.p", source)
    got = {(s.qname, s.kind, s.start_line, s.end_line, s.parent) for s in parsed.symbols}
    assert got == {
        ("p.S", "class", 3, 3, "p.p"),
        ("p.I", "class", 4, 4, "p.p"),
        ("p.Alias", "class", 5, 5, "p.p"),
        ("p.a", "variable", 8, 8, "p.p"),
        ("p.b", "variable", 8, 8, "p.p"),
        ("p.C", "variable", 12, 12, "p.p"),
        ("p.F", "function", 14, 14, "p.p"),
        ("p.S.M", "method", 16, 16, "p.S"),
    }
    assert parsed.syntax_errors == 0


def test_syntax_errors_and_invalid_utf8_never_raise() -> None:
    parsed = GO.parse("x.go", "x", b"package x\nfunc Ok() {}\nfunc (((\n\xff\xfe")
    assert parsed.syntax_errors > 0 and "x.Ok" in {s.qname for s in parsed.symbols}
    assert GO.parse("e.go", "e", b"").symbols == ()


def test_a_pickled_parse_resolves_exactly_like_the_original() -> None:
    """The parse cache stores pickles, and `ParsedFile.data` (what resolution reads) is left out of `==`."""
    case = FIXTURES / "packages_imports"
    names = GO.module_names(sorted(p.relative_to(case).as_posix() for p in case.rglob("*.go")))
    project = {module: GO.parse(path, module, (case / path).read_bytes()) for path, module in names.items()}
    clones = {module: pickle.loads(pickle.dumps(parsed)) for module, parsed in project.items()}
    for module, parsed in project.items():
        assert clones[module] == parsed and clones[module].data == parsed.data
        assert GO.resolve(clones[module], clones) == GO.resolve(parsed, project)
    assert sum(len(GO.resolve(parsed, project)) for parsed in project.values()) > 5  # there was something to lose


def test_dependencies() -> None:
    case = FIXTURES / "packages_imports"
    parsed = GO.parse("cmd/app/main.go", "cmd.app.main", (case / "cmd/app/main.go").read_bytes())
    deps = GO.dependencies(parsed)
    assert {"cmd.app", "pkg.server", "pkg.store"} <= deps and "fmt" not in deps
