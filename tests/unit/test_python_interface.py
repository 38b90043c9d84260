"""Which edits other modules can notice: the incremental update re-resolves other files only for those."""

from __future__ import annotations

import pytest

from ingest.languages import by_name

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
