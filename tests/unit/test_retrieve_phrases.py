"""The phrases signal without a graph: string literals scanned from source, a task's words matched as runs."""

from __future__ import annotations

from pathlib import Path

from kg.retrieve.phrases import (
    BREAK,
    MAX_TASK_WORDS,
    index_files,
    is_code,
    literals,
    rank_phrases,
    shingles,
    task_words,
    words_of,
)

PY = '''"""Module docstring: Using pytest.skip outside of a test is not allowed."""
import sys


def skip(msg):
    """Skip: Using pytest.skip outside of a test is not allowed, says the docstring."""
    # a comment: "Using pytest.skip outside of a test is not allowed"
    raise RuntimeError(
        "Using pytest.skip outside of a test is not allowed. "
        "To decorate a test function, use the @pytest.mark.skip "
        f"decorator instead of {msg!r}."
    )


def diff(side, n, item):
    return "%s contains %d more items, first extra item: %s" % (side, n, item)
'''

JS = """// "Cannot read the config file named here" is a comment
const a = 'it\\'s a quoted string';
const t = `template ${name} was not found in the registry`;
/* "block comment phrase that is not printed" */
throw new Error("the port is already in use by another server");
"""


def test_python_literals_join_adjacent_parts_cut_placeholders_and_skip_docstrings_and_comments() -> None:
    found = literals(PY, "pkg/mod.py")
    joined = [s for s in found if "Using pytest.skip" in s]
    assert len(joined) == 1  # the three adjacent parts are one message; docstrings and the comment are not printed
    assert "To decorate a test function" in joined[0] and "decorator instead of" in joined[0]
    assert "{msg!r}" not in joined[0]
    assert words_of([s for s in found if "more items" in s][0]) == ["*", "contains", "*", "more", "items", "first",
                                                                    "extra", "item", "*"]


def test_c_family_literals_take_templates_and_skip_both_comment_forms() -> None:
    found = literals(JS, "src/app.js")
    assert "the port is already in use by another server" in found
    assert any("was not found in the registry" in s for s in found)
    assert not any("config file named" in s or "block comment" in s for s in found)


def test_words_are_letters_of_any_script_lowercased() -> None:
    assert words_of("Right contains 3 more_items: 52") == ["right", "contains", "3", "more", "items", "52"]
    assert words_of("Ошибка: файл не найден") == ["ошибка", "файл", "не", "найден"]
    assert shingles(["a", "b", "c"], 2) == ["a b", "b c"] and shingles(["a"], 4) == []


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "runner.py").write_text(PY)
    (tmp_path / "pkg" / "other.py").write_text('def f():\n    return "use the @pytest.mark.skip decorator"\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_runner.py").write_text('assert msg == "Right contains 3 more items, first extra '
                                                       'item: 52"\n')
    return tmp_path


def test_a_quoted_message_ranks_the_file_printing_it_by_its_longest_run(tmp_path: Path) -> None:
    index = index_files(_repo(tmp_path), ["pkg/runner.py", "pkg/other.py", "tests/test_runner.py"])
    assert "tests/test_runner.py" not in index.by_file  # a test's expected output is not the code printing it
    ranked = rank_phrases(index, "Calling skip at module level says:\n> Using pytest.skip outside of a test is "
                                 "not allowed. To decorate a test function, use the @pytest.mark.skip or skipif")
    assert [p for p, _ in ranked.files][0] == "pkg/runner.py"
    assert ranked.files[0][1].reasons[0].startswith('prints "using pytest skip outside of a test is not allowed')
    score, phrase = index.match(words_of("> Using pytest.skip outside of a test is not allowed. To decorate a test "
                                         "function, use the @pytest.mark.skip or skipif"))["pkg/runner.py"]
    assert phrase.endswith("test function use the pytest mark skip")  # the whole run, across the joined parts
    diff = rank_phrases(index, "E   Right contains 2 more items, first extra item: 49")
    assert [p for p, _ in diff.files] == ["pkg/runner.py"]


def test_nothing_quoted_non_english_or_huge_input_returns_quietly(tmp_path: Path) -> None:
    index = index_files(_repo(tmp_path), ["pkg/runner.py", "pkg/other.py"])
    assert rank_phrases(index, "the skip function is confusing").files == []  # no run of four words in a literal
    assert rank_phrases(index, "").files == []
    assert rank_phrases(index, "跳过 模块 级别 的 测试 不 被 允许").files == []
    log = "Using pytest.skip outside of a test is not allowed. " * 5000  # 50,000 words
    assert [p for p, _ in rank_phrases(index, log).files] == ["pkg/runner.py"]
    assert len(words_of(log)) > MAX_TASK_WORDS


def test_an_unreadable_or_removed_file_is_skipped_and_an_update_forgets_it(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    index = index_files(root, ["pkg/runner.py", "pkg/missing.py"])
    assert len(index.by_file["pkg/missing.py"]) == 0
    index.update({"pkg/other.py": None})
    assert set(index.by_file) == {"pkg/other.py"} and not index.holders("using pytest skip outside of")


def test_a_placeholder_stands_for_one_printed_word(tmp_path: Path) -> None:
    (tmp_path / "parser.py").write_text('raise UsageError(_("Option {name!r} requires an argument.").format(name=n))\n'
                                        'note = "%s of the %s"\n')
    index = index_files(tmp_path, ["parser.py"])
    assert [p for p, _ in rank_phrases(index, "Error: Option '--name' requires an argument.").files] == ["parser.py"]
    assert rank_phrases(index, "a matter of the heart").files == []  # two placeholders in four words: too loose


def test_literals_far_apart_are_two_messages_and_a_long_blank_run_is_read_once() -> None:
    """attack5 C1: the joiner was a regex of nested optional white space, cubic over a blank run after a literal
    (2,400 blank lines cost every `kg context` 22 s). Now literals more than MAX_JOIN_GAP characters apart are two
    messages, and the gap is read with string operations."""
    gap = "\n" * 3000
    assert literals(f'x = ("first half of a message"{gap}"second half")\n', "a.py") == [
        "first half of a message", "second half"]
    assert literals('x = ("first half " \\\n   + "second half")\n', "a.py") == ["first half second half"]


def test_an_unterminated_block_comment_or_triple_quote_runs_to_the_end_of_the_file() -> None:
    """attack5 C2: each unterminated `/*` was scanned to the end of the file again (quadratic: 20,000 of them cost
    17.5 s). An unterminated comment now ends the file; an unterminated triple quote is one literal to the end."""
    assert literals('const a = "before the comment";\n' + "/* \n" * 20_000 + 'const b = "inside it";\n',
                    "a.js") == ["before the comment"]
    assert literals('x = 1\ny = """never closed, printed as is', "a.py") == ["never closed, printed as is"]


def test_a_banner_of_pasted_output_is_not_a_phrase_but_the_error_line_under_it_is(tmp_path: Path) -> None:
    """A test runner heads each section of its output with a banner ('>>>> PDB post_mortem (IO-capturing turned
    off) >>>>'), printed on every run whatever the bug: the file printing it is the reporting code, not the one to
    fix (pytest-11148 pasted a pdb session and the debugger's banner outranked the fix). The error line is kept."""
    (tmp_path / "debugging.py").write_text('tw.sep(">", "PDB post_mortem (IO-capturing turned off)")\n')
    (tmp_path / "config.py").write_text('raise ImportError("module was imported twice under two different names")\n')
    index = index_files(tmp_path, ["debugging.py", "config.py"])
    report = ("Module imported twice\n```\n"
              ">>>>>>>>>>>>>>>>>>>> PDB post_mortem (IO-capturing turned off) >>>>>>>>>>>>>>>>>>>>\r\n"
              "E   ImportError: module was imported twice under two different names\r\n```\n")
    assert [p for p, _ in rank_phrases(index, report).files] == ["config.py"]
    # the same words in prose or in an error line are a phrase: only the framed line is a banner
    assert [p for p, _ in rank_phrases(index, "it says PDB post_mortem (IO-capturing turned off) and stops").files] \
        == ["debugging.py"]
    words = task_words("one two\n===== test session starts =====\nthree four")
    assert words == ["one", "two", BREAK, "three", "four"]  # no phrase runs across the banner's place


def test_a_literal_holding_code_is_a_template_not_a_message() -> None:
    """A literal with a `def`/`class`/`import` line is code the program runs or writes (pytest's bench/xunit.py
    execs `class Test{i}: @classmethod def setup_class(cls)`): it matched the test code a report pasted."""
    source = ('exec(f"""\nclass Test{i}:\n    @classmethod\n    def setup_class(cls): pass\n""")\n'
              'fail("import file mismatch: imported module %r has this __file__ attribute")\n'
              'js = "function f(a) { return a }"\n'
              'warn("function foo() is deprecated, use bar")\n')
    found = literals(source, "bench/xunit.py")
    assert not any("setup_class" in s or "return a" in s for s in found)
    assert any(s.startswith("import file mismatch") for s in found)
    assert any(s.startswith("function foo() is deprecated") for s in found)
    assert is_code("import os\nprint(1)") and is_code("from a.b import c") and not is_code("import of x failed")
