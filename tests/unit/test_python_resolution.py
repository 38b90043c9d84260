"""Python front end: resolution of calls, imports and inheritance against fixture programs under
`tests/fixtures/python/<case>/`, each with an `expected.txt` (format: tests/expectations.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from kg.ingest.facts import RESOLUTIONS, Edge, ParsedFile
from kg.ingest.languages.python import LANGUAGE

from tests.expectations import assert_case, case_sources
from tests.expectations import load_case as load_cases


def load(case: Path) -> tuple[list[ParsedFile], list[Edge]]:
    return load_cases(case, [LANGUAGE])

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "python"
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case: Path) -> None:
    assert_case(case, [LANGUAGE])


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_edges_are_well_formed(case: Path) -> None:
    parsed, edges = load(case)
    sources = {f.module for f in parsed} | {s.qname for f in parsed for s in f.symbols}
    for e in edges:
        assert e.resolution in RESOLUTIONS, e
        assert 0.0 <= e.confidence <= 1.0, e
        assert e.line >= 1, e
        assert e.source in sources, e
        if e.target_kind == "builtin":
            assert e.target.startswith("<builtin>."), e


def test_ambiguous_candidates_share_confidence() -> None:
    _parsed, edges = load(CASES_DIR / "ambiguous")
    saves = [e for e in edges if e.source == "main.persist" and e.target.endswith(".save")]
    assert sorted(e.target for e in saves) == ["models.Invoice.save", "models.Order.save", "models.User.save"]
    assert all(e.resolution == "name_only" and abs(e.confidence - 1 / 3) < 1e-6 for e in saves)


def test_resolve_is_deterministic_and_cached_per_project() -> None:
    sources = case_sources(CASES_DIR / "type_inference", LANGUAGE.extensions)
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
    parsed, _edges = load(CASES_DIR / "syntax_error")
    assert [f.syntax_errors > 0 for f in parsed] == [True]


def test_a_decorated_call_goes_through_its_wrapper() -> None:
    """The edge from a caller to its decorated function names the wrapper it runs through (`through`), which is
    what `kg export callgraph --format pycg` turns back into the wrapper's own call; a direct call names none."""
    _parsed, edges = load(CASES_DIR / "decorator_wrappers")
    calls = {(e.source, e.target): e.through for e in edges if e.kind == "CALLS"}
    wrapper = "scaffold.setupmethod.wrapper_func"
    assert calls[("test_app.test_after_request", "scaffold.Scaffold.after_request")] == wrapper
    assert calls[("test_app.test_after_request", "scaffold.setupmethod.wrapper_func")] == ""
    assert calls[("scaffold.setupmethod.wrapper_func", "scaffold.plain")] == ""
    # stacked wrappers: each goes through the one outside it
    assert calls[("test_app.test_stacked", "scaffold.outer.outer_wrapper")] == ""
    assert calls[("test_app.test_stacked", "scaffold.inner.inner_wrapper")] == "scaffold.outer.outer_wrapper"
    assert calls[("test_app.test_stacked", "scaffold.stacked")] == "scaffold.inner.inner_wrapper"


def test_imports_under_type_checking_are_type_only() -> None:
    """Only the body of `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` is type-only: its `else:` and
    `if not TYPE_CHECKING:` run (cycle detection leaves type-only imports out)."""
    _parsed, edges = load(CASES_DIR / "type_checking")
    imports = {(e.source, e.target): e.type_only for e in edges if e.kind == "IMPORTS"}
    assert imports[("models", "views.View")] is True
    assert imports[("models", "views")] is True
    assert imports[("models", "helpers.fallback")] is False
    assert imports[("models", "helpers")] is False
    assert imports[("views", "models.Model")] is False
    assert not any(e.type_only for e in edges if e.kind == "CALLS")
