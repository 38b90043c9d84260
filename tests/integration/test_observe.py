"""`kg observe` on a small real project (tests/fixtures/observe/proj, run by kg's own Python's pytest) against the
real Neo4j: what it stores, how tests-for/callers/path/export use it, staleness after an edit and re-ingest, the
`--changed` re-run, bad input, and machine output that is complete unless a limit is asked for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.observe.observer import SuiteError, observe
from kg.ingest.observe.trace import TraceError
from kg.ingest.pipeline import Ingestor

from kg.cli import cli
from kg.errors import InputError
from kg.export import callgraph
from kg.navigate import answers, guide
from kg.navigate.changes import changes
from kg.settings import Settings
from kg.store import Store

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "observe" / "proj"
REPO = "proj"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def project(tmp_path: Path, store: Store) -> Path:
    """A git-committed copy of the fixture project, ingested as `proj`."""
    root = tmp_path / "proj"
    shutil.copytree(PROJECT, root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "proj")
    Ingestor(store, root, repo=REPO).run()
    return root


def by_test(answer: answers.Answer) -> dict[str, dict]:
    return {r["test"]: r for r in answer.rows}


def cli_env(settings: Settings) -> dict[str, str]:
    """The environment that points a `kg` command at the test server (whichever ports it got)."""
    return {"NEO4J_URI": settings.uri, "NEO4J_PASSWORD": settings.password, "COLUMNS": "200"}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_observe_stores_covers_and_observed_calls(store: Store, project: Path) -> None:
    report = observe(store, project)
    assert (report.repo, report.mode, report.tests, report.failed) == (REPO, "full", 6, 0)
    assert "kg's own Python" in report.origin and report.edges["library"] >= 1

    # half is reached only through a dict of handlers: static analysis cannot see it, the run did
    assert answers.tests_for(store, ["half"], REPO, evidence="static").rows == []
    found = by_test(answers.tests_for(store, ["half"], REPO))
    assert set(found) == {"tests/test_prices.py::test_half_by_name", "tests/test_prices.py::test_half_param[2]",
                          "tests/test_prices.py::test_half_param[4]"}
    assert {r["source"] for r in found.values()} == {"observed"} and not any(r["stale"] for r in found.values())

    # `known` is memoized: only the first test to ask ran it, yet every test that ran its caller depends on it
    ran = store.read_text("MATCH (:Symbol {key: $key})<-[:COVERS]-(t:ObservedTest) RETURN count(t) AS n",
                          key=f"{REPO}:shop.prices.known")[0]["n"]
    memo = by_test(answers.tests_for(store, ["shop.prices.known"], REPO, evidence="observed"))
    assert ran == 1 and set(memo) == set(found)
    assert any("a caller of memoized known" in r["how"] for r in memo.values())

    total = by_test(answers.tests_for(store, ["Basket.total"], REPO))
    assert total["tests/test_prices.py::test_total"]["source"] == "both"  # static and observed agree

    # Browser's guide asks both questions on its tests slide, with one :params line: the static tests are :Test
    # symbols, the observed ones :ObservedTest nodes (one label, one meaning)
    html = guide.render(store, REPO, "http://localhost:1")
    blocks = [(name, unescape(text)) for name, text in
              re.findall(r'<pre class="runnable"(?: data-query="(\w+)")?>(.*?)</pre>', html, re.DOTALL)]
    at = [name for name, _ in blocks].index("tests_for")
    assert blocks[at + 1][0] == "tests_for_observed"
    literal = blocks[at - 1][1].removeprefix(":params").strip()
    params = store.read_text(f"RETURN {literal} AS p")[0]["p"]
    static_rows = store.read_text(blocks[at][1], **params)
    seen = store.read_text(blocks[at + 1][1], **params)
    nodeids = {r["n"] for r in store.read_text("MATCH (t:ObservedTest {repo: $repo}) RETURN t.nodeid AS n",
                                               repo=REPO)}
    assert seen and {r["test"] for r in seen} <= nodeids
    assert static_rows and all(store.read_text("MATCH (t:Test {key: $key}) RETURN count(t) AS n",
                                               key=f"{REPO}:{r['qname']}")[0]["n"] == 1 for r in static_rows)
    assert store.read_text("MATCH (t:Test:ObservedTest) RETURN count(t) AS n")[0]["n"] == 0

    # copy.deepcopy (library code) calls Basket.__deepcopy__ for snapshot: an observed edge through a library
    observed = answers.callers(store, "Basket.__deepcopy__", REPO)
    assert [(r["caller"], r["resolution"]) for r in observed.rows] == [("shop.prices.snapshot",
                                                                        "observed via library")]
    assert answers.callers(store, "Basket.__deepcopy__", REPO, evidence="static").rows == []
    assert answers.callers(store, "shop.prices.half", REPO, evidence="observed").rows[0]["caller"] == \
        "shop.prices.apply"
    steps = answers.call_path(store, "test_half_by_name", "shop.prices.half", REPO).rows[0]["steps"]
    assert [s["resolution"] for s in steps][-1] == "observed"
    impact = {r["dependent"]: r for r in answers.impact(store, ["shop.prices.half"], REPO).rows}
    assert impact["shop.prices.apply"]["evidence"] == "observed"

    # the PyCG export stays static unless asked; observed calls through libraries are no direct calls
    assert "shop.prices.half" not in callgraph(store, REPO)["shop.prices.apply"]
    both = callgraph(store, REPO, evidence="all")
    assert "shop.prices.half" in both["shop.prices.apply"]
    assert "shop.prices.Basket.__deepcopy__" not in both["shop.prices.snapshot"]
    calls = callgraph(store, REPO, "json", evidence="observed")["shop.prices.snapshot"]["calls"]
    assert {"callee": "shop.prices.Basket.__deepcopy__", "resolution": "observed", "via": "library", "count": 1,
            "confidence": 1.0} in calls

    # a second full run replaces the first: no duplicates
    again = observe(store, project)
    counts = store.read_text("MATCH (t:ObservedTest {repo: $repo}) RETURN count(t) AS tests", repo=REPO)[0]
    assert again.tests == counts["tests"] == 6
    edges = store.read_text("MATCH (a)-[r:CALLS {resolution: 'observed'}]->() WHERE a.repo = $repo "
                            "RETURN count(r) AS n", repo=REPO)[0]["n"]
    assert edges == sum(again.edges.values())


def test_a_function_tests_call_directly_turns_stale_when_it_changes(store: Store, project: Path) -> None:
    """Basket.total is called by test code itself (test_total): the test function became a seed of its own, with a
    COVERS edge in the unchanged test file, so the row never turned stale after an edit of Basket.total."""
    observe(store, project)
    fresh = by_test(answers.tests_for(store, ["Basket.total"], REPO))
    assert fresh and not any(r["stale"] for r in fresh.values())
    edit(project / "shop" / "prices.py", "return sum(self.items)", "return sum(self.items) + 0")
    Ingestor(store, project, repo=REPO).run()
    stale = by_test(answers.tests_for(store, ["Basket.total"], REPO))
    assert set(stale) == set(fresh)
    observed = [r for r in stale.values() if r["evidence"] != "static"]
    assert observed and all(r["stale"] for r in observed), {t: (r["evidence"], r["stale"]) for t, r in stale.items()}


def test_an_edit_makes_observations_stale_and_changed_reruns_only_what_it_affects(store: Store,
                                                                                  project: Path) -> None:
    observe(store, project)
    edit(project / "shop" / "prices.py", "return cents // 2", "return cents // 2 + 0")
    Ingestor(store, project, repo=REPO).run()

    stale = by_test(answers.tests_for(store, ["half"], REPO))
    assert len(stale) == 3 and all(r["stale"] and r["evidence"] == "observed (stale)" for r in stale.values())
    assert answers.callers(store, "shop.prices.half", REPO, evidence="observed").rows[0]["resolution"] == \
        "observed (stale)"
    report = changes(store, project, limit=None)
    assert [c["qname"] for c in report.changed] == ["shop.prices.half"]
    assert set(report.pytest_args()) == set(stale)
    assert any("stale observations" in note for note in report.tests.notes)

    rerun = observe(store, project, changed=True)
    assert rerun.changed_nodes == ["shop.prices.half"]
    assert rerun.selected == 3 and rerun.tests == 3 and rerun.refreshed > 0
    assert not any(r["stale"] for r in answers.tests_for(store, ["half"], REPO).rows)
    # Basket.total lives in the changed file but did not change: its evidence is fresh again without a re-run
    assert not any(r["stale"] for r in answers.tests_for(store, ["Basket.total"], REPO).rows)
    assert store.read_text("MATCH (t:ObservedTest {repo: $repo}) RETURN count(t) AS n", repo=REPO)[0]["n"] == 6

    nothing = observe(store, project, changed=True)
    assert nothing.tests == 0 and nothing.selected == 0 and "nothing the observed tests ran" in nothing.notes[0]

    # a changed test file runs again whole: a new test in it is observed, a removed one forgotten
    edit(project / "tests" / "test_other.py", "def test_empty_total():",
         "def test_two():\n    assert Basket([2]).total() == 2\n\n\ndef test_empty_total_renamed():")
    Ingestor(store, project, repo=REPO).run()
    rerun = observe(store, project, changed=True)
    assert rerun.tests == 2 and rerun.changed_nodes == []
    nodeids = {r["n"] for r in store.read_text("MATCH (t:ObservedTest {repo: $repo}) RETURN t.nodeid AS n", repo=REPO)}
    assert "tests/test_other.py::test_two" in nodeids and "tests/test_other.py::test_empty_total" not in nodeids


def test_failing_tests_are_stored_and_counted(store: Store, project: Path) -> None:
    edit(project / "tests" / "test_prices.py", "assert Basket([1, 2, 3]).total() == 6",
         "assert Basket([1, 2, 3]).total() == 7")
    Ingestor(store, project, repo=REPO).run()
    report = observe(store, project)
    assert report.tests == 6 and report.failed == 1 and report.exit_code == 1
    assert report.notes[0] == "1 of 6 tests failed; what they ran is stored all the same"
    outcome = store.read_text("MATCH (t:ObservedTest {key: $key}) RETURN t.outcome AS o",
                              key=f"{REPO}:tests/test_prices.py::test_total")[0]["o"]
    assert outcome == "failed"
    # static analysis still counts for a test whose observed run failed (it may have stopped early)
    total = by_test(answers.tests_for(store, ["Basket.total"], REPO))
    assert total["tests/test_prices.py::test_total"]["source"] == "both"


LEAKY = PROJECT.parent / "leaky"


def test_tests_that_ran_test_code_calling_a_function_are_selected_for_it(store: Store, tmp_path: Path) -> None:
    """tests/fixtures/observe/leaky: an autouse fixture pops, in its teardown, whatever context a test left behind.
    Only one test pushes (and pops) a context, so only it runs `Context.pop`; yet when `pop` breaks, that test
    leaves its context behind and every later test's teardown pops it and fails too. The run shows the fixture
    ran in every test and static analysis shows it calls `pop`: those tests are selected for `pop`. Checked
    against the real failures of the suite with a fault injected into `pop` (kg's own Python runs it)."""
    root = tmp_path / "leaky"
    shutil.copytree(LEAKY, root)
    Ingestor(store, root, repo="leaky").run()
    observe(store, root, "leaky")
    ran = store.read_text("MATCH (:Symbol {key: 'leaky:app.ctx.Context.pop'})<-[:COVERS]-(t:ObservedTest) "
                          "RETURN collect(t.nodeid) AS ids")[0]["ids"]
    assert ran == ["tests/test_ctx.py::test_context_is_current_inside_with"]

    for evidence in ("observed", "combined"):
        picked = by_test(answers.tests_for(store, ["app.ctx.Context.pop"], "leaky", evidence=evidence))
        assert set(picked) == {f"tests/test_ctx.py::{name}" for name in
                               ("test_context_is_current_inside_with", "test_greeting", "test_greeting_empty")}
        assert picked["tests/test_ctx.py::test_greeting"]["how"] == \
            "ran tests.conftest.leak_detector (test code calling pop)"
    # a function test code does not call keeps exactly the tests that ran it
    assert set(by_test(answers.tests_for(store, ["app.ctx.greeting"], "leaky"))) == \
        {"tests/test_ctx.py::test_greeting", "tests/test_ctx.py::test_greeting_empty"}

    edit(root / "app" / "ctx.py", "        _stack.remove(self)",
         '        raise RuntimeError("broken pop")\n        _stack.remove(self)')
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", "--tb=no"],
                         cwd=root, capture_output=True, text=True)
    failing = {line.split()[1] for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))}
    assert failing == set(picked)


COLLECT = PROJECT.parent / "collect"


def collected_tests(root: Path) -> set[str]:
    """The node ids pytest collects in `root`, with kg's own Python."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only"],
                          cwd=root, capture_output=True, text=True)
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_a_test_modules_own_import_time_code_counts_for_its_tests_only(store: Store, tmp_path: Path) -> None:
    """tests/fixtures/observe/collect: test_declared.py declares a command in its own body, so `option` → `Option`
    → `split_opt` run while pytest imports that file, in no test. When `split_opt` breaks, that file fails to import
    (its two tests fail) and the one test that builds an Option fails; test_plain.py and the rest pass. So the
    import of a test module counts for that module's tests, not for the whole session as it did (every test
    selected); a project module's import (`@command` in cli/options.py) still counts for every test, since every
    importer fails with it. Checked against the real failures with a fault injected (kg's own Python runs it)."""
    root = tmp_path / "collect"
    shutil.copytree(COLLECT, root)
    before = collected_tests(root)
    assert len(before) == 7
    Ingestor(store, root, repo="collect").run()
    observe(store, root, "collect")

    declared = {"tests/test_declared.py::test_shout", "tests/test_declared.py::test_shout_nothing_given"}
    for evidence in ("observed", "combined"):
        picked = by_test(answers.tests_for(store, ["cli.options.split_opt"], "collect", evidence=evidence))
        assert set(picked) == declared | {"tests/test_runtime.py::test_option_built_in_the_test"}, evidence
    assert picked["tests/test_declared.py::test_shout"]["how"].startswith(
        "ran cli.options.split_opt while importing tests/test_declared.py")
    # called only while a test module is imported: its tests, from the run, and static analysis agrees
    factory = by_test(answers.tests_for(store, ["cli.options.option"], "collect"))
    assert set(factory) == declared and {r["source"] for r in factory.values()} == {"both"}
    # run while cli/options.py itself is imported: every test file importing it fails with it
    assert set(by_test(answers.tests_for(store, ["cli.options.command"], "collect", evidence="observed"))) == before

    edit(root / "cli" / "options.py", '    first = decl[:2] if decl[:2] == "--" else decl[:1]\n',
         '    raise RuntimeError("broken split_opt")\n    first = decl[:2] if decl[:2] == "--" else decl[:1]\n')
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", "--tb=no",
                          "--continue-on-collection-errors"], cwd=root, capture_output=True, text=True)
    # a test module that cannot be imported fails each of its tests (as bench/faults.py counts them)
    reported = {line.split()[1] for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))}
    failing = {t for t in before for r in reported if t == r or t.startswith(r + "::")}
    assert reported and failing == set(picked)


def test_bad_input_is_one_line_and_changes_nothing(store: Store, project: Path, tmp_path: Path,
                                                   graph_settings: Settings) -> None:
    with pytest.raises(InputError, match="is not in an ingested repository: run `kg ingest"):
        observe(store, tmp_path)
    with pytest.raises(InputError, match="no repository named 'nope' in the graph"):
        observe(store, repo="nope")
    with pytest.raises(InputError, match=r"cannot start '/no/such/python'"):
        observe(store, project, command=["/no/such/python", "-m", "pytest"])
    with pytest.raises(SuiteError, match="no tests found"):
        observe(store, project, command=[sys.executable, "-m", "pytest", "-k", "no_test_has_this_name"])
    with pytest.raises(SuiteError, match="ran no pytest with kg's tracer"):
        observe(store, project, command=["true"])
    (project / "tests" / "conftest.py").write_text("import os\n\n\ndef pytest_runtest_teardown(item):\n"
                                                  "    if item.name == 'test_total':\n        os._exit(3)\n")
    Ingestor(store, project, repo=REPO).run()
    with pytest.raises(TraceError, match="is truncated after line"):
        observe(store, project)
    (project / "tests" / "conftest.py").unlink()
    with pytest.raises(InputError, match=r"1 file changed since the last ingest \(tests/conftest.py\): run `kg"):
        observe(store, project)
    Ingestor(store, project, repo=REPO).run()
    assert store.read_text("MATCH (n:ObservedTest|TestScope|ObservedRun) RETURN count(n) AS n")[0]["n"] == 0

    result = CliRunner().invoke(cli, ["observe", str(project), "--", "/no/such/python"], env=cli_env(graph_settings))
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "error: cannot start '/no/such/python'" in result.output


@pytest.fixture
def many(project: Path, store: Store) -> Path:
    """The project with 60 more tests that call `apply` and observe the lot: more rows than any default limit."""
    body = "".join(f"\n\ndef test_many_{n}():\n    assert apply('half', {2 * n}) == {n}\n" for n in range(60))
    (project / "tests" / "test_many.py").write_text("from shop.prices import apply\n" + body)
    Ingestor(store, project, repo=REPO).run()
    observe(store, project)
    git(project, "add", "-A")
    git(project, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "many")
    edit(project / "shop" / "prices.py", "return globals()[HANDLERS[name]](cents)",
         "return globals()[HANDLERS[name]](cents) + 0")
    Ingestor(store, project, repo=REPO).run()
    return project


def test_machine_output_is_complete_unless_a_limit_is_asked_for(many: Path, graph_settings: Settings) -> None:
    def kg(*args: str) -> str:
        result = CliRunner().invoke(cli, list(args), env=cli_env(graph_settings))
        assert result.exit_code == 0, result.output
        return result.output

    pytest_ids = kg("tests-for", "apply", "--repo", REPO, "--pytest").split()
    assert len(pytest_ids) == 63 and len(set(pytest_ids)) == 63  # 60 + test_half_by_name + 2 parameters
    assert len(kg("tests-for", "apply", "--repo", REPO, "--pytest", "--limit", "5").split()) == 5
    as_json = json.loads(kg("tests-for", "apply", "--repo", REPO, "--json"))
    assert (as_json["total"], as_json["shown"], as_json["truncated"], as_json["limit"]) == (63, 63, False, None)
    table = kg("tests-for", "apply", "--repo", REPO)
    assert "showing 50 of 63 tests (raise the limit to see more)" in table

    changed = kg("changes", str(many), "--pytest").split()
    assert sorted(changed) == sorted(pytest_ids)
    report = json.loads(kg("changes", str(many), "--json"))
    assert report["tests"]["total"] == report["tests"]["shown"] == 63
    human = kg("changes", str(many), "--limit", "10")
    assert "showing 10 of 63 tests" in human and f"`kg changes --pytest {many}` prints every one" in human
    assert "run: pytest" not in human  # the 10 shown are not the tests to run (newuser6 #4)

    for args, rows in ((["callers", "shop.prices.apply", "--evidence", "static", "--repo", REPO], 61),
                       (["impact", "shop.prices.apply", "--evidence", "static", "--repo", REPO], 62),
                       (["hotspots", "--repo", REPO], 70), (["query", "hotspots", "--param", "repo=proj"], 70)):
        full = json.loads(kg(*args, "--json"))
        assert not full["truncated"] and full["shown"] == full["total"] >= rows, (args, full["total"])
        cut = json.loads(kg(*args, "--json", "--limit", "3"))
        assert cut["shown"] == 3 and cut["truncated"]


REDEFINED = PROJECT.parent / "redefined"


def test_code_of_a_name_defined_twice_counts_for_its_one_node(store: Store, tmp_path: Path) -> None:
    """tests/fixtures/observe/redefined: `scale` has two `@overload` stubs before the implementation that runs, the
    property `Box.width` a setter, `label` a definition in each branch of an `if`, `make` a class `Made` in each.
    kg keeps one node per name, spanning one definition; the code that ran belongs to the others. It was mapped
    by line to the class or module around it, so `test_scale_number → scale` became `→ shapes.box` (as flask's
    `test_locate_app → locate_app`, behind two overloads) and no test was selected for `scale` from the run.
    Checked against the real failures of the suite with a fault in `scale`'s implementation."""
    root = tmp_path / "redefined"
    shutil.copytree(REDEFINED, root)
    Ingestor(store, root, repo="redefined").run()
    report = observe(store, root, "redefined")
    assert (report.tests, report.failed) == (6, 0)
    observed = {(r["a"], r["b"]) for r in store.read_text(
        "MATCH (a {repo: 'redefined'})-[:CALLS {resolution: 'observed'}]->(b) RETURN a.qname AS a, b.qname AS b")}
    assert {("tests.test_box.test_scale_number", "shapes.box.scale"), ("shapes.box.Box.width", "shapes.box.checked"),
            ("tests.test_box.test_label", "shapes.box.label"), ("shapes.box.make.Made.size", "shapes.box.scale"),
            ("shapes.box.make", "shapes.box.make.Made.size")} <= observed
    assert not {(a, b) for a, b in observed if b in ("shapes.box", "shapes.box.Box", "shapes.box.make.Made")
                and a.startswith(("tests.test_box.test_", "shapes.box.make.Made"))}  # only imports run those bodies

    def picked(qname: str) -> set[str]:
        return set(by_test(answers.tests_for(store, [qname], "redefined", evidence="observed")))

    scaled = {"tests/test_box.py::test_scale_number", "tests/test_box.py::test_scale_text",
              "tests/test_box.py::test_make_large"}
    assert picked("shapes.box.scale") == scaled
    assert picked("shapes.box.checked") == {"tests/test_box.py::test_resize"}
    assert picked("shapes.box.label") == {"tests/test_box.py::test_label"}

    edit(root / "shapes" / "box.py", "    return value * 2\n", '    raise RuntimeError("broken scale")\n')
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", "--tb=no"],
                         cwd=root, capture_output=True, text=True)
    assert {line.split()[1] for line in run.stdout.splitlines() if line.startswith("FAILED ")} == scaled


def test_the_work_folder_inside_the_project_goes_when_the_run_ends(store: Store, project: Path) -> None:
    """`kg observe` works in the project's `.kg/observe` (ingest/observe/cli.py): newuser3 found it left behind,
    empty. What the run made is removed; a `.kg` that was there before stays."""
    observe(store, project, work_dir=project / ".kg" / "observe")
    assert not (project / ".kg").exists()
    (project / ".kg").mkdir()
    observe(store, project, work_dir=project / ".kg" / "observe")
    assert (project / ".kg").is_dir() and not (project / ".kg" / "observe").exists()
