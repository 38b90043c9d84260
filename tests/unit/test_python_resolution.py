"""Python front end: resolution of calls, imports and inheritance against fixture programs.

Every case is a folder under `tests/fixtures/python/<case>/` holding a small program and an `expected.txt`, one
expectation per line (blank lines and `#` comments ignored):

    [!][KIND ]source -> target [resolution] [confidence] [[target_kind]]   KIND: CALLS (default), IMPORTS, INHERITS
    [!]symbol qname [kind [start_line]]

`confidence` is a number (checked to 1e-6) or a bound such as `<1` or `<=0.5`. A leading `!` means no such
edge/symbol may exist. Resolution, confidence and target kind are checked only when given. A source file named
`x.py.txt` is parsed as `x.py` (so code that must not compile stays out of the linters' way).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from ingest.facts import RESOLUTIONS, Edge, ParsedFile
from ingest.languages.python import LANGUAGE

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "python"
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir())


def case_sources(case: Path) -> dict[str, bytes]:
    """Repo-relative path → bytes. `x.py.txt` stands for `x.py` (invalid code kept away from linters)."""
    sources = {}
    for file in sorted(case.rglob("*")):
        rel = file.relative_to(case).as_posix()
        if rel.endswith(".py.txt"):
            rel = rel.removesuffix(".txt")
        if rel.endswith(".py"):
            sources[rel] = file.read_bytes()
    return sources


def load_case(case: Path) -> tuple[list[ParsedFile], list[Edge]]:
    sources = case_sources(case)
    names = LANGUAGE.module_names(sources)
    files = [LANGUAGE.parse(path, names[path], source) for path, source in sources.items()]
    project = {f.module: f for f in files}
    edges = [edge for f in files for edge in LANGUAGE.resolve(f, project)]
    return files, edges


def _confidence_ok(spec: str, value: float) -> bool:
    for op, test in (("<=", float.__le__), ("<", float.__lt__), (">=", float.__ge__), (">", float.__gt__)):
        if spec.startswith(op):
            return test(value, float(spec[len(op) :]))
    return abs(value - float(spec)) < 1e-6


def _edge_matches(edge: Edge, kind: str, source: str, target: str, rest: list[str]) -> bool:
    if (edge.kind, edge.source, edge.target) != (kind, source, target):
        return False
    for token in rest:
        if token in RESOLUTIONS:
            ok = edge.resolution == token
        elif token.startswith("["):
            ok = edge.target_kind == token.strip("[]")
        else:
            ok = _confidence_ok(token, edge.confidence)
        if not ok:
            return False
    return True


def check_expectations(case: Path, parsed: list[ParsedFile], edges: list[Edge]) -> list[str]:
    symbols = {s.qname: s for f in parsed for s in f.symbols}
    failures = []
    for raw in (case / "expected.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
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
    return "\n".join(
        sorted(
            f"  {e.kind} {e.source} -> {e.target} [{e.target_kind}] {e.resolution} {e.confidence} @{e.line}"
            for e in edges
        )
    )


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case: Path) -> None:
    parsed, edges = load_case(case)
    failures = check_expectations(case, parsed, edges)
    assert not failures, "unmet expectations:\n  " + "\n  ".join(failures) + "\nedges:\n" + describe(edges)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_edges_are_well_formed(case: Path) -> None:
    parsed, edges = load_case(case)
    sources = {f.module for f in parsed} | {s.qname for f in parsed for s in f.symbols}
    for e in edges:
        assert e.resolution in RESOLUTIONS, e
        assert 0.0 <= e.confidence <= 1.0, e
        assert e.line >= 1, e
        assert e.source in sources, e
        if e.target_kind == "builtin":
            assert e.target.startswith("<builtin>."), e


def test_ambiguous_candidates_share_confidence() -> None:
    _parsed, edges = load_case(CASES_DIR / "ambiguous")
    saves = [e for e in edges if e.source == "main.persist" and e.target.endswith(".save")]
    assert sorted(e.target for e in saves) == ["models.Invoice.save", "models.Order.save", "models.User.save"]
    assert all(e.resolution == "name_only" and abs(e.confidence - 1 / 3) < 1e-6 for e in saves)


def test_resolve_is_deterministic_and_cached_per_project() -> None:
    sources = case_sources(CASES_DIR / "type_inference")
    names = LANGUAGE.module_names(sources)
    files = [LANGUAGE.parse(path, names[path], source) for path, source in sources.items()]
    project = {f.module: f for f in files}
    first = {f.module: LANGUAGE.resolve(f, project) for f in files}
    second = {f.module: LANGUAGE.resolve(f, project) for f in files}
    assert first == second
    # a new mapping (e.g. after an incremental update) is resolved afresh, from unpickled files too
    clone = {m: pickle.loads(pickle.dumps(f)) for m, f in project.items()}
    assert {m: LANGUAGE.resolve(f, clone) for m, f in clone.items()} == first


def test_resolution_follows_a_changed_project() -> None:
    lib_v1 = LANGUAGE.parse("lib.py", "lib", b"def f():\n    pass\n")
    lib_v2 = LANGUAGE.parse("lib.py", "lib", b"from other import f\n")
    other = LANGUAGE.parse("other.py", "other", b"def f():\n    pass\n")
    main = LANGUAGE.parse("main.py", "main", b"from lib import f\n\ndef run():\n    f()\n")
    edges_v1 = LANGUAGE.resolve(main, {"lib": lib_v1, "other": other, "main": main})
    edges_v2 = LANGUAGE.resolve(main, {"lib": lib_v2, "other": other, "main": main})
    assert any(e.kind == "CALLS" and e.target == "lib.f" for e in edges_v1)
    assert any(e.kind == "CALLS" and e.target == "other.f" for e in edges_v2)
    assert {"lib"} <= LANGUAGE.dependencies(main)


def test_dependencies_cover_imports_and_packages() -> None:
    parsed = LANGUAGE.parse(
        "app/sub/worker.py",
        "app.sub.worker",
        b"import os\nfrom ..util import helper\nfrom . import peer\nimport app.x.y as z\n",
    )
    deps = LANGUAGE.dependencies(parsed)
    assert {"os", "app", "app.util", "app.sub", "app.sub.peer", "app.x", "app.x.y"} <= deps
    assert "app.sub.worker" not in deps


def test_syntax_error_case_reports_errors() -> None:
    parsed, _edges = load_case(CASES_DIR / "syntax_error")
    assert [f.syntax_errors > 0 for f in parsed] == [True]
