"""Go front end: naming, symbols and resolution against fixture programs under `tests/fixtures/go/<case>/`.

`expected.txt` has one expectation per line (blank lines and `#` comments ignored):

    [!][KIND ]source -> target [resolution [confidence]]    KIND is CALLS (default), IMPORTS or INHERITS
    [!]symbol qname [kind [start_line]]
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from ingest.facts import Edge, ParsedFile
from ingest.languages.go import LANGUAGE as GO

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "go"
CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def load_case(case: Path) -> tuple[list[ParsedFile], list[Edge]]:
    paths = sorted(p.relative_to(case).as_posix() for p in case.rglob("*.go"))
    names = GO.module_names(paths)
    files = [GO.parse(path, names[path], (case / path).read_bytes()) for path in paths]
    project = {f.module: f for f in files}
    return files, [edge for f in files for edge in GO.resolve(f, project)]


def check_expectations(case: Path, parsed: list[ParsedFile], edges: list[Edge]) -> list[str]:
    symbols = {s.qname: s for f in parsed for s in f.symbols}
    failures = []
    for raw in (case / "expected.txt").read_text().splitlines():
        line = "" if raw.lstrip().startswith("#") else raw.strip()
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


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case: Path) -> None:
    parsed, edges = load_case(case)
    failures = check_expectations(case, parsed, edges)
    listing = "\n".join(
        sorted(f"  {e.kind} {e.source} -> {e.target} [{e.target_kind}] {e.resolution} {e.confidence}" for e in edges)
    )
    assert not failures, "unmet expectations:\n  " + "\n  ".join(failures) + "\nedges:\n" + listing


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


def test_picklable_and_dependencies() -> None:
    case = FIXTURES / "packages_imports"
    parsed = GO.parse("cmd/app/main.go", "cmd.app.main", (case / "cmd/app/main.go").read_bytes())
    assert pickle.loads(pickle.dumps(parsed)) == parsed
    deps = GO.dependencies(parsed)
    assert {"cmd.app", "pkg.server", "pkg.store"} <= deps and "fmt" not in deps
