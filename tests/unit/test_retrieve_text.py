"""Reading a task without a model: code names by shape, search words split like code, fusion and PageRank maths,
and the strategy/budget files' validation. No database."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import ConfigError
from kg.retrieve.config import load_budget, load_orchestrator
from kg.retrieve.rank import Evidence, SignalRanking, Weights, fuse, is_test, lucene_query, personalized_pagerank
from kg.retrieve.text import MAX_TASK_CHARS, code_words, read_task, split_identifier, symbol_words, vendored

TRACEBACK = '''Crash when saving:

Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/shop/cart.py", line 23, in checkout
    return self.store.save(order)
  File "shop/storage.py", line 14, in save
    self._orders.append(order)
AttributeError: 'NoneType' object has no attribute 'append'
'''


def test_traceback_frames_give_project_paths_and_functions() -> None:
    task = read_task(TRACEBACK)
    shapes = {m.text: m.shape for m in task.mentions}
    assert shapes["shop/cart.py"] == "frame" and shapes["shop/storage.py"] == "frame"
    assert shapes["checkout"] == "frame" and shapes["save"] == "frame"
    assert shapes["AttributeError"] == "error"
    assert task.mentions[0].shape == "frame"  # strongest first


def test_the_frames_nearest_the_error_weigh_most() -> None:
    """The innermost frame (where the error was raised) outweighs the entry point above it; a name seen in several
    frames keeps its deepest position."""
    task = read_task(TRACEBACK)
    by_text = {m.text: m for m in task.mentions}
    assert by_text["shop/storage.py"].depth == 0 and by_text["shop/cart.py"].depth == 1
    assert by_text["save"].weight > by_text["checkout"].weight > by_text["AttributeError"].weight
    assert task.mentions[0].text in ("shop/storage.py", "save")
    again = read_task(TRACEBACK + '  File "shop/cart.py", line 40, in checkout\n')
    assert {m.text: m for m in again.mentions}["shop/cart.py"].depth == 0


def test_dotted_names_identifiers_and_quoted_code() -> None:
    task = read_task("I think `cached_eval` should be inlined into MarkEvaluator._istrue; see _pytest/mark/evaluate.py"
                     " and call evaluate_condition() instead.")
    shapes = {m.text: m.shape for m in task.mentions}
    assert shapes["MarkEvaluator._istrue"] == "dotted"
    assert shapes["_pytest/mark/evaluate.py"] == "file"
    assert shapes["cached_eval"] == "code"
    assert shapes["evaluate_condition"] == "code"
    names = task.names()
    assert names["_istrue"] == 2.0 and names["evaluate"] == 2.5  # innermost names, strongest weight


def test_words_are_split_like_code_and_stop_words_dropped() -> None:
    task = read_task("The cached_eval of skipif conditions is wrong")
    assert {"cached", "eval", "cached_eval", "skipif", "conditions", "wrong"} <= set(task.words)
    assert "the" not in task.words and "is" not in task.words
    assert split_identifier("MarkEvaluator") == ["mark", "evaluator"]
    assert split_identifier("HTTPAdapter_send") == ["httpadapter", "send"]


def test_a_task_in_another_language_keeps_its_code_names() -> None:
    task = read_task("Beim Aufruf von Cart.checkout() kommt ein Fehler. 购物车结账时出错")
    assert "Cart.checkout" in {m.text for m in task.mentions}
    assert not task.empty


def test_empty_and_punctuation_only_tasks_are_empty() -> None:
    assert read_task("").empty
    assert read_task("   ?! ... ---").empty


def test_a_huge_pasted_log_is_cut_to_head_and_tail() -> None:
    log = "Report: the scheduler stalls\n" + "noise line\n" * 200_000 + 'File "app/jobs.py", line 9, in run\n'
    task = read_task(log)
    assert task.cut and len(task.text) <= MAX_TASK_CHARS + 10
    assert task.text.startswith("Report: the scheduler stalls")
    assert "app/jobs.py" in {m.text for m in task.mentions}  # the traceback at the end survives the cut


def test_code_and_symbol_words() -> None:
    words = code_words("def cached_eval(config):\n    cached_eval(x)\n    cached_eval(y)\n    cached_eval(z)\n")
    assert words.split().count("cached_eval") == 3  # capped term frequency
    assert {"cached", "eval", "def", "config"} <= set(words.split())
    assert symbol_words("pkg.mod.MarkEvaluator._istrue", "def _istrue(self, item)", "True when it holds.") == (
        "mark evaluator markevaluator istrue self item True when it holds.")


def test_lucene_query_quotes_every_word() -> None:
    assert lucene_query(["not", "cart", "a-b", "x_y"]) == '"not" "cart" "x_y"'


def _ranking(name: str, paths: list[str]) -> SignalRanking:
    return SignalRanking(name, [(p, Evidence(1.0 / (i + 1), [f"{name} {p}"])) for i, p in enumerate(paths)])


def test_fusion_rewards_agreement_and_demotes_tests() -> None:
    fused = fuse([_ranking("names", ["a.py", "b.py"]), _ranking("fulltext", ["b.py", "tests/test_b.py"]),
                  _ranking("vectors", ["tests/test_b.py", "b.py"])], Weights())
    assert [f.path for f in fused][:2] == ["b.py", "a.py"]
    assert fused[0].signals == {"names": 2, "fulltext": 1, "vectors": 2}
    assert fused[-1].path == "tests/test_b.py"  # ranked by two signals, but a test counts half
    only_names = fuse([_ranking("names", ["a.py"]), _ranking("fulltext", ["b.py"])], Weights(fulltext=0.0))
    assert [f.path for f in only_names][0] == "a.py"
    assert is_test("testing/test_x.py") and is_test("pkg/conftest.py") and not is_test("src/contest.py")
    assert is_test("testing/python/fixtures.py") and is_test("numpy/core/tests/helpers.py")
    assert not is_test("django/test/testcases.py")  # a package's test framework is library code


def test_personalized_pagerank_lifts_the_file_several_seeds_share() -> None:
    ties = {"a": {"hub": 1.0}, "b": {"hub": 1.0}, "c": {"hub": 1.0, "leaf": 1.0},
            "hub": {"a": 1.0, "b": 1.0, "c": 1.0}, "leaf": {"c": 1.0}}
    rank = personalized_pagerank(ties, {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, alpha=0.5)
    assert rank["hub"] > rank["leaf"] > 0
    assert abs(sum(rank.values()) - 1.0) < 1e-6


def test_config_files_default_and_validate_with_the_key_named(tmp_path: Path) -> None:
    assert load_budget(tmp_path).per_call == 6000
    assert load_orchestrator(tmp_path).strategy("debug").load[0] == "files"
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "budget.yaml").write_text("per_call: lots\n")
    with pytest.raises(ConfigError, match=r"budget.yaml: `per_call`: .*'lots'"):
        load_budget(tmp_path)
    (tmp_path / ".agent" / "orchestrator.yaml").write_text("types:\n  modify:\n    load: [files, poetry]\n")
    with pytest.raises(ConfigError, match=r"orchestrator.yaml: `types.modify.load.1`"):
        load_orchestrator(tmp_path)
    (tmp_path / ".agent" / "orchestrator.yaml").write_text("types: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_orchestrator(tmp_path)
    (tmp_path / ".agent" / "orchestrator.yaml").write_text(
        "types:\n  read: {load: [files, docs], files: 3}\ndegrade: [cut]\n")
    custom = load_orchestrator(tmp_path)
    assert custom.strategy("read").files == 3 and custom.degrade == ("cut",)
    assert custom.strategy("modify").load[1] == "code"  # a type the file leaves out keeps its default


VENDORED_TRACEBACK = '''socket error not wrapped
  File "/home/me/app.py", line 3, in main
    fetch()
  File "/venv/lib/python2.7/site-packages/requests-2.3.0-py2.7.egg/requests/models.py", line 721, in text
    if not self.content:
  File "/venv/lib/python2.7/site-packages/requests-2.3.egg/requests/packages/urllib3/response.py", line 9, in read
    data = self._fp.read(amt)
socket.error: [Errno 104] Connection reset by peer
'''


def test_frames_are_kept_innermost_first_with_the_installed_egg_dropped() -> None:
    task = read_task(VENDORED_TRACEBACK)
    assert [f.path for f in task.frames] == ["requests/packages/urllib3/response.py", "requests/models.py",
                                             "home/me/app.py"]
    assert [f.depth for f in task.frames] == [0, 1, 2] and task.frames[1].func == "text"


def test_vendored_copies_of_other_projects_are_told_apart() -> None:
    assert vendored("requests/packages/urllib3/response.py") and vendored("pip/_vendor/rich/text.py")
    assert vendored("third_party/six.py") and vendored("src/vendor/lib.py")
    assert not vendored("packages/app/models.py")  # a monorepo's own top-level packages/ folder
    assert not vendored("requests/models.py") and not vendored("src/_pytest/python.py")


def test_a_name_written_with_a_version_is_a_product_not_code() -> None:
    """A pasted session header or `pip list`: `Python 3.7.3`, `pytest-4.4.0`, `attrs 19.1.0` name products, not
    the project's python.py; the same words still go to the searches."""
    task = read_task("Bad report for `all` calls\n`platform darwin -- Python 3.7.3, pytest-4.4.0, py-1.8.0`\n"
                     "```\nattrs          19.1.0\n```\nsee `rewrite_asserts` and `Python`")
    assert {"python", "pytest", "attrs"} <= task.products
    texts = {m.text for m in task.mentions}
    assert "rewrite_asserts" in texts and not texts & {"Python", "pytest", "attrs"}
    assert task.words["python"] == 2  # still searched by full text and vectors


def test_a_signal_with_a_scale_counts_its_best_file_by_it_not_as_one() -> None:
    """The names signal says what its 1.0 is worth: a weak best hit (score 2 of a scale of 8) counts a quarter, so
    another signal's best file wins; without a scale the weak hit would count as much as any best file."""
    weak = SignalRanking("names", [("python.py", Evidence(2.0))], scale=8.0)
    other = SignalRanking("fulltext", [("rewrite.py", Evidence(3.0)), ("python.py", Evidence(1.0))])
    assert [f.path for f in fuse([weak, other], Weights())][0] == "rewrite.py"
    unscaled = SignalRanking("names", [("python.py", Evidence(2.0))])
    assert [f.path for f in fuse([unscaled, other], Weights())][0] == "python.py"


def test_a_pasted_package_listing_is_not_the_reports_words() -> None:
    """A report template's `pip list` (pytest-7490 pastes 290 packages): its names would be most of the search
    words and fill the embedding model's window. The listing goes with its header and rule; its versions still say
    which products are named, and two version lines in prose stay."""
    listing = "\n".join(f"{name:<20} {version}" for name, version in
                        [("atomicwrites", "1.3.0"), ("pluggy", "0.13.0"), ("zope.interface", "4.7.1"),
                         ("sunpy", "1.1.dev518+gcad2d473f.d20191103 /Users/me/sandbox/sunpy"), ("xdist", "1.29.0")])
    report = (f"xfail marker added in a test no longer ignores the failure\n```\n$ pip list\nPackage   Version\n"
              f"--------- -------\n{listing}\npluggy==0.13.0\nattrs==19.3.0\nmock==3.0.5\n```\n"
              "Run with Python 3.7.6 and\npytest 6.0.0rc1 on MacOS\n")
    task = read_task(report)
    assert not {"atomicwrites", "zope", "sunpy", "xdist", "mock", "package"} & set(task.words)
    assert {"xfail", "marker", "pip", "python", "pytest", "macos"} <= set(task.words)
    assert "Package" not in {m.text for m in task.mentions} and "sunpy" not in task.text
    assert {"atomicwrites", "pluggy", "python", "pytest"} <= task.products
    assert "sunpy" not in read_task(report.replace("\n", "\r\n")).text  # as a browser's form sends it
