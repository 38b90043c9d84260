"""tree-sitter is quadratic on some input (an unterminated `/*` in JavaScript, TypeScript and Go): every parse gets
a CPU budget (kg.ingest.languages.syntax.parse_within_budget), and a file that uses it up is kept as an empty module
with a reason that says what to do. The budget is made small here so that the test does not wait for the default."""

from __future__ import annotations

import pytest
from kg.ingest.languages import language_for, syntax

# 3,000 lines of an unterminated comment: about a second of CPU for JavaScript, four for Go (bench/parse_budget.py),
# twenty times the budget these tests give
PATHOLOGICAL = "/* \n" * 3000
NORMAL = {"a.js": "function hello(x) { return x + 1; }\n", "a.ts": "function hello(x: number) { return x + 1; }\n",
          "a.go": "package a\n\nfunc hello(x int) int { return x + 1 }\n", "a.py": "def hello(x):\n    return x + 1\n"}


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "PARSE_SECONDS", 0.05)
    monkeypatch.setattr(syntax, "PARSE_SECONDS_PER_BYTE", 0.0)


@pytest.mark.parametrize("path", ["a.js", "a.ts", "a.go"])
def test_a_parse_that_uses_up_its_budget_keeps_an_empty_module_and_says_what_to_do(path: str, small_budget) -> None:
    lang = language_for(path)
    parsed = lang.parse(path, "a", (NORMAL[path] + PATHOLOGICAL).encode())
    assert parsed.gave_up.startswith("parsing gave up after 0.1 s of CPU") and "--exclude" in parsed.gave_up
    assert "\n" not in parsed.gave_up
    assert parsed.symbols == () and parsed.syntax_errors == 1
    assert parsed.loc == NORMAL[path].count("\n") + 3000
    assert lang.resolve(parsed, {parsed.module: parsed}) == []
    # the parser it stopped is reset: the next file parses whole
    again = lang.parse(path, "a", NORMAL[path].encode())
    assert again.gave_up == "" and [s.name for s in again.symbols] == ["hello"]


@pytest.mark.parametrize("path", sorted(NORMAL))
def test_a_normal_file_parses_whole_within_the_budget(path: str, small_budget) -> None:
    parsed = language_for(path).parse(path, "a", NORMAL[path].encode())
    assert parsed.gave_up == "" and parsed.syntax_errors == 0
    assert [(s.name, s.signature != "") for s in parsed.symbols] == [("hello", True)]  # node text read right


def test_python_has_no_such_input_for_the_default_budget() -> None:
    """An unterminated triple-quoted string (Python's only multi-line comment) stays linear: 20,000 lines parse."""
    parsed = language_for("a.py").parse("a.py", "a", b'x = 1\n' + b'""" \n' * 20000)
    assert parsed.gave_up == "" and parsed.loc == 20001
