"""Python front end: module naming, symbol extraction and robustness of `parse`."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest
from kg.ingest.facts import RESOLUTIONS, ParsedFile, Symbol
from kg.ingest.languages.python import LANGUAGE, PyModule

SOURCE = b'''"""Module doc."""
import os

LIMIT = 10
timeout: float = 2.5


class Session(Base):
    """HTTP session.

    Longer text.
    """

    retries = 3

    def get(self, url, **kwargs):
        """Send a GET."""
        return self.request("GET", url, **kwargs)

    @staticmethod
    def helper(
        a: int,
        b: str = "x",
    ) -> bool:
        return True

    async def close(self):
        pass


def outer(x):
    def inner(y):
        return y

    class Local:
        def method(self):
            pass

    return inner(x)
'''


def parse(source: bytes = SOURCE, path: str = "pkg/sessions.py", module: str = "pkg.sessions") -> ParsedFile:
    return LANGUAGE.parse(path, module, source)


def by_qname(parsed: ParsedFile) -> dict[str, Symbol]:
    return {s.qname: s for s in parsed.symbols}


def test_language_object() -> None:
    assert LANGUAGE.name == "python"
    assert ".py" in LANGUAGE.extensions


def test_module_names_plain_packages_and_init() -> None:
    names = LANGUAGE.module_names(["pkg/__init__.py", "pkg/mod.py", "pkg/sub/__init__.py", "setup.py", "README.md"])
    assert names == {
        "pkg/__init__.py": "pkg",
        "pkg/mod.py": "pkg.mod",
        "pkg/sub/__init__.py": "pkg.sub",
        "setup.py": "setup",
    }


def test_module_names_strip_a_source_root() -> None:
    paths = [
        "src/flask/__init__.py",
        "src/flask/app.py",
        "src/flask/json/__init__.py",
        "tests/conftest.py",
        "tests/test_app.py",
        "tests/apps/blueprintapp/__init__.py",
        "docs/conf.py",
    ]
    names = LANGUAGE.module_names(paths)
    assert names["src/flask/__init__.py"] == "flask"
    assert names["src/flask/app.py"] == "flask.app"
    assert names["src/flask/json/__init__.py"] == "flask.json"
    # tests/ holds modules of its own: it is not a source root
    assert names["tests/test_app.py"] == "tests.test_app"
    assert names["tests/apps/blueprintapp/__init__.py"] == "tests.apps.blueprintapp"
    assert names["docs/conf.py"] == "docs.conf"


def test_src_is_a_source_root_even_beside_a_top_level_module() -> None:
    """pytest's tree: `src/pytest.py` beside `src/_pytest/`; its code imports `_pytest.main` and `pytest`."""
    names = LANGUAGE.module_names(["src/pytest.py", "src/_pytest/__init__.py", "src/_pytest/main.py",
                                   "testing/test_main.py", "src/pkg_only_module.py"])
    assert names["src/pytest.py"] == "pytest" and names["src/_pytest/main.py"] == "_pytest.main"
    assert names["src/_pytest/__init__.py"] == "_pytest" and names["src/pkg_only_module.py"] == "pkg_only_module"
    assert names["testing/test_main.py"] == "testing.test_main"
    assert LANGUAGE.module_names(["src/__init__.py", "src/app.py"])["src/app.py"] == "src.app"  # src a package


def test_module_names_keep_a_top_package_and_avoid_collisions() -> None:
    names = LANGUAGE.module_names(["lib/__init__.py", "lib/x.py", "src/pkg/__init__.py", "pkg/__init__.py"])
    assert names["lib/x.py"] == "lib.x"  # lib/ is itself a package
    assert sorted(names.values()) == sorted(set(names.values()))


def test_symbols_kinds_qnames_parents() -> None:
    symbols = by_qname(parse())
    expected = {
        "pkg.sessions.LIMIT": ("variable", "pkg.sessions"),
        "pkg.sessions.timeout": ("variable", "pkg.sessions"),
        "pkg.sessions.Session": ("class", "pkg.sessions"),
        "pkg.sessions.Session.get": ("method", "pkg.sessions.Session"),
        "pkg.sessions.Session.helper": ("method", "pkg.sessions.Session"),
        "pkg.sessions.Session.close": ("method", "pkg.sessions.Session"),
        "pkg.sessions.outer": ("function", "pkg.sessions"),
        "pkg.sessions.outer.inner": ("function", "pkg.sessions.outer"),
        "pkg.sessions.outer.Local": ("class", "pkg.sessions.outer"),
        "pkg.sessions.outer.Local.method": ("method", "pkg.sessions.outer.Local"),
    }
    assert {q: (s.kind, s.parent) for q, s in symbols.items()} == expected
    assert all(s.name == s.qname.rsplit(".", 1)[1] for s in symbols.values())


def test_symbol_lines_signatures_docstrings() -> None:
    symbols = by_qname(parse())
    cls = symbols["pkg.sessions.Session"]
    assert (cls.start_line, cls.end_line) == (8, 28)
    assert cls.signature == "class Session(Base)"
    assert cls.doc == "HTTP session."
    get = symbols["pkg.sessions.Session.get"]
    assert (get.start_line, get.end_line) == (16, 18)
    assert get.signature == "def get(self, url, **kwargs)"
    assert get.doc == "Send a GET."
    helper = symbols["pkg.sessions.Session.helper"]
    assert helper.start_line == 20  # a decorated definition starts at its first decorator
    assert helper.signature == 'def helper( a: int, b: str = "x", ) -> bool'
    assert helper.doc == ""
    assert symbols["pkg.sessions.Session.close"].signature == "async def close(self)"
    assert symbols["pkg.sessions.LIMIT"].start_line == 4


def test_loc_and_clean_file_has_no_syntax_errors() -> None:
    parsed = parse()
    assert parsed.loc == SOURCE.count(b"\n")
    assert parsed.syntax_errors == 0
    assert parsed.lang == "python" and parsed.path == "pkg/sessions.py" and parsed.module == "pkg.sessions"


def _assert_plain(value: object) -> None:
    """Only dataclasses from our modules, tuples, str, int, bool, float, None."""
    if dataclasses.is_dataclass(value):
        assert type(value).__module__.startswith(("kg.ingest.languages.python", "kg.ingest.facts"))
        for f in dataclasses.fields(value):
            _assert_plain(getattr(value, f.name))
    elif isinstance(value, tuple):
        for item in value:
            _assert_plain(item)
    else:
        assert value is None or isinstance(value, str | int | float | bool), type(value)


def test_parsed_file_is_plain_and_picklable() -> None:
    parsed = parse()
    assert isinstance(parsed.data, PyModule)
    _assert_plain(parsed)
    clone = pickle.loads(pickle.dumps(parsed))
    assert clone == parsed and clone.data == parsed.data


def test_parse_is_pure() -> None:
    assert parse() == parse() and parse().data == parse().data


def test_syntax_errors_are_counted_and_the_rest_kept() -> None:
    source = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    def m(self):\n        pass\n"
    parsed = parse(source, "m.py", "m")
    assert parsed.syntax_errors >= 1
    symbols = by_qname(parsed)
    assert "m.ok" in symbols and "m.After" in symbols and "m.After.m" in symbols


@pytest.mark.parametrize(
    "source",
    [
        b"",
        b"\xff\xfe\x00garbage\x80\x81 def (((",
        b"def f(:\n  \xe9\xe8 = '\xff'\n",
        b"class :\n\tdef\n" * 50,
        b"x = (" * 500,
        b"a." * 2000 + b"b()",
        "def f():\n    return 'caf\u00e9'  # \u00fcnicode\n".encode(),
        b"\x00" * 100,
    ],
)
def test_parse_never_raises(source: bytes) -> None:
    assert_consistent(source, parse(source, "g.py", "g"))


def test_parse_survives_random_bytes() -> None:
    rng = random.Random(7)
    alphabet = b"def class ( ) : = . , \n    self import from return lambda @ [ ] { } ' \" \\ \xff \x00"
    for _ in range(200):
        source = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        assert_consistent(source, parse(source, "r.py", "r"), "r")


def assert_consistent(source: bytes, parsed: ParsedFile, module: str = "g") -> None:
    """What survives bad input must still be a well-formed file: symbols inside the file and under the module, each
    parent known, edges from known sources to lines of the file with a known resolution and a confidence in [0, 1]
    (0 only for a call nothing answers), and picklable."""
    lines = source.count(b"\n") + 1
    assert isinstance(parsed, ParsedFile) and parsed.module == module
    qnames = {s.qname for s in parsed.symbols}
    for symbol in parsed.symbols:
        assert 1 <= symbol.start_line <= symbol.end_line <= lines, symbol
        assert symbol.qname.startswith(module + ".") and symbol.parent in qnames | {module}, symbol
    for edge in LANGUAGE.resolve(parsed, {module: parsed}):
        assert edge.source in qnames | {module} and 1 <= edge.line <= lines and edge.resolution in RESOLUTIONS, edge
        assert 0 < edge.confidence <= 1 or (edge.confidence == 0 and edge.target_kind == "unresolved"), edge
    clone = pickle.loads(pickle.dumps(parsed))
    assert clone == parsed and clone.data == parsed.data


def test_invalid_utf8_names_are_replaced_not_fatal() -> None:
    parsed = parse(b"def caf\xe9():\n    pass\n\n\ndef ok():\n    return 1\n", "u.py", "u")
    broken, ok = parsed.symbols  # the function with the bad byte is kept, and what follows it is intact
    assert broken.qname.startswith("u.caf") and broken.kind == "function" and (broken.start_line, broken.end_line) == (
        1, 2)
    assert "\ufffd" in broken.signature  # the byte is replaced, not dropped silently or passed on raw
    assert (ok.qname, ok.start_line, ok.end_line) == ("u.ok", 5, 6)
    for symbol in parsed.symbols:
        (symbol.qname + symbol.signature).encode("utf-8")  # strings the driver can send


def test_pytest_fixtures_yields_and_parameters_are_recorded() -> None:
    source = (b"import pytest\nfrom pytest import fixture\n\n\n@pytest.fixture(scope='session', name='db')\n"
              b"def _database(engine, retries=3):\n    conn = engine.connect()\n    yield conn\n    yield\n\n\n"
              b"@fixture\ndef engine():\n    return make()\n\n\n"
              b"def plain(x):\n    def inner():\n        yield from x\n")
    data = LANGUAGE.parse("tests/conftest.py", "tests.conftest", source).data
    scopes = {s.qname: s for s in data.scopes}
    db = scopes["tests.conftest._database"]
    assert (db.fixture, db.fixture_decorator, db.yields) == ("db", ("pytest", "fixture"), (("conn",), ("<lit>",)))
    params = [(b.name, b.kind) for b in db.bindings if b.name in ("engine", "retries")]
    assert params == [("engine", "param"), ("retries", "param")]
    assert [(p.name, p.kind, p.default) for p in db.params] == [("engine", "arg", ()), ("retries", "arg", ("<lit>",))]
    requested = [c.chain for c in data.calls if c.scope == db.qname and c.kind == "fixture"]
    assert requested == [("engine",)]  # pytest fills `engine`, not `retries` (it has a default)
    engine = scopes["tests.conftest.engine"]
    assert (engine.fixture, engine.fixture_decorator, engine.yields) == ("engine", ("fixture",), ())
    assert scopes["tests.conftest.plain"].fixture == "" and scopes["tests.conftest.plain"].yields == ()
    assert scopes["tests.conftest.plain.inner"].yields == (("x", "<iter>"),)  # `yield from x`: what iterating x gives
