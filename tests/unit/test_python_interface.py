"""Which edits other modules can notice: the incremental update re-resolves other files only for those."""

from __future__ import annotations

import pytest
from kg.ingest.languages import by_name

PY = by_name("python")
BASE = (b"import os\n\n\nclass A:\n    def m(self):\n        return os.getcwd()\n\n\n"
        b"def f(x):\n    y = 1\n    print(y)\n    return x\n")


@pytest.mark.parametrize("name, source, interface_equal, names", [
    ("a call-only edit", BASE.replace(b"print(y)", b"os.remove(y)"), True, frozenset()),
    ("lines move", b"\n\n" + BASE, True, frozenset()),
    ("a function is appended", BASE + b"\n\ndef g():\n    return 2\n", False, frozenset({"g"})),
    ("a method is added", BASE.replace(b"    def m(self):", b"    def n(self):\n        pass\n\n    def m(self):"),
     False, frozenset({"n"})),
    ("a local no return reads", BASE.replace(b"    y = 1\n", b"    y = 1\n    z = os.sep\n"), False, frozenset()),
    ("what a function returns", BASE.replace(b"return x", b"return y"), False, None),
    ("an import", b"import sys\n" + BASE, False, None),
    ("a base class", BASE.replace(b"class A:", b"class A(dict):"), False, None),
])
def test_interface_and_interface_change(name: str, source: bytes, interface_equal: bool, names) -> None:
    before = PY.parse("m.py", "m", BASE)
    after = PY.parse("m.py", "m", source)
    assert (PY.interface(before) == PY.interface(after)) is interface_equal, name
    if not interface_equal:
        assert PY.interface_change(before, after) == names, name


FIXTURES = (b"import pytest\n\n\n@pytest.fixture\ndef client(app):\n    c = app.client()\n    d = app.other()\n"
            b"    yield c\n\n\ndef helper():\n    pass\n")


@pytest.mark.parametrize("name, source, names", [
    ("what a fixture yields", FIXTURES.replace(b"yield c", b"yield d"), None),
    ("a local the yield reads", FIXTURES.replace(b"c = app.client()", b"c = app.other()"), None),
    ("a fixture's request name", FIXTURES.replace(b"@pytest.fixture\n", b"@pytest.fixture(name='cl')\n"), None),
    ("a function becomes a fixture", FIXTURES.replace(b"def helper", b"@pytest.fixture\ndef helper"), None),
    ("a fixture yields instead of returning", FIXTURES.replace(b"yield c", b"return c"), None),
    ("a local no yield reads", FIXTURES.replace(b"d = app.other()", b"d = app.third()"), frozenset()),
    ("a fixture is added", FIXTURES + b"\n\n@pytest.fixture\ndef other():\n    return 1\n", frozenset({"other"})),
])
def test_fixture_changes(name: str, source: bytes, names) -> None:
    before = PY.parse("tests/conftest.py", "tests.conftest", FIXTURES)
    after = PY.parse("tests/conftest.py", "tests.conftest", source)
    assert PY.interface(before) != PY.interface(after), name
    assert PY.interface_change(before, after) == names, name


def test_tests_and_fixtures_depend_on_the_conftests_above_them() -> None:
    test = PY.parse("tests/api/test_x.py", "tests.api.test_x", b"def test_a(client):\n    client.get()\n")
    assert {"tests.api.conftest", "tests.conftest", "conftest"} <= PY.dependencies(test)
    conftest = PY.parse("tests/api/conftest.py", "tests.api.conftest", FIXTURES)
    assert {"tests.conftest", "conftest"} <= PY.dependencies(conftest)
    assert "tests.api.conftest" not in PY.dependencies(conftest)
    plain = PY.parse("app/x.py", "app.x", b"def run(client):\n    client.get()\n\n\ndef test_like(client):\n    pass\n")
    assert not {d for d in PY.dependencies(plain) if d.endswith("conftest")}


LOCALS = (b"import os\n\n\ndef flag() -> bool:\n    val = os.environ.get('A')\n    return bool(val)\n\n\n"
          b"def make():\n    rv = os.getcwd()\n    return rv\n\n\ndef log():\n    rv = os.sep\n    print(rv)\n\n\n"
          b"def outer():\n    x = os.getcwd()\n\n    def inner():\n        return x\n    return inner\n")


@pytest.mark.parametrize("name, old, new, names", [
    # flask's get_debug_flag: this edit re-resolved 67 of its 82 files
    ("a local a `-> bool` return reads", b"get('A')", b"get('A', '')", frozenset()),
    ("a local an unannotated return reads", b"rv = os.getcwd()", b"rv = os.getpid()", None),
    ("a local named like one another function returns", b"rv = os.sep", b"rv = os.linesep", frozenset()),
    ("a local a nested function returns", b"x = os.getcwd()", b"x = os.getpid()", None),
    ("a scalar annotation becomes another", b"-> bool", b"-> os.PathLike", None),
])
def test_which_local_edits_other_modules_can_notice(name: str, old: bytes, new: bytes, names) -> None:
    assert old in LOCALS, name
    before = PY.parse("m.py", "m", LOCALS)
    after = PY.parse("m.py", "m", LOCALS.replace(old, new, 1))
    assert PY.interface(before) != PY.interface(after), name
    assert PY.interface_change(before, after) == names, name
