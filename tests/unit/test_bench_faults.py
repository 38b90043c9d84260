"""bench.faults' truth: which tests a fault really fails, read from a real pytest run of a small project in a
temporary folder (no database). The suite has a test module that cannot be imported (its tests must all count as
failing, as the user sees them), a module whose tests fail at run time, a parametrized test and a passing module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.faults import TRUTH_ARGS, reported_failures

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def broken():\n    raise RuntimeError('fault')\n\n\ndef fine():\n    return 1\n",
    # the fault as bench.faults injects it: a function this test module calls in its own body
    "tests/test_import_breaks.py": "from pkg.core import broken\n\nVALUE = broken()\n\n\ndef test_a():\n    pass\n\n\n"
                                   "class TestB:\n    def test_b(self):\n        pass\n",
    "tests/test_runtime.py": "import pytest\nfrom pkg.core import broken, fine\n\n\ndef test_calls_broken():\n"
                             "    broken()\n\n\ndef test_fine():\n    assert fine() == 1\n\n\n"
                             "@pytest.mark.parametrize('n', [1, 2])\ndef test_param(n):\n    if n == 2:\n"
                             "        broken()\n",
    "tests/test_other.py": "def test_other():\n    pass\n",
}

EVERY = ["tests/test_import_breaks.py::test_a", "tests/test_import_breaks.py::TestB::test_b",
         "tests/test_runtime.py::test_calls_broken", "tests/test_runtime.py::test_fine",
         "tests/test_runtime.py::test_param[1]", "tests/test_runtime.py::test_param[2]",
         "tests/test_other.py::test_other"]


def test_a_module_that_fails_to_import_fails_each_of_its_tests_and_the_rest_still_run(tmp_path: Path) -> None:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests", *TRUTH_ARGS],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 1, done.stdout + done.stderr  # failures, not an interrupted session (2)
    assert reported_failures(done.stdout, done.returncode, EVERY) == {
        "tests/test_import_breaks.py::test_a", "tests/test_import_breaks.py::TestB::test_b",
        "tests/test_runtime.py::test_calls_broken", "tests/test_runtime.py::test_param[2]"}


def test_a_collection_error_below_the_module_fails_the_tests_under_it() -> None:
    output = "ERROR tests/test_runtime.py::test_param - ValueError: bad ids\nFAILED tests/test_other.py::test_other\n"
    assert reported_failures(output, 1, EVERY) == {"tests/test_runtime.py::test_param[1]",
                                                   "tests/test_runtime.py::test_param[2]",
                                                   "tests/test_other.py::test_other"}


def test_a_session_that_dies_before_naming_a_test_fails_them_all() -> None:
    assert reported_failures("ImportError while loading conftest '/x/conftest.py'.\n", 4, EVERY) == set(EVERY)
