"""Navigation on graphs whose answers are known: the bundled tinyshop and tests/fixtures/navigate, ingested once for
this module. Every query file is also planned (EXPLAIN) by Neo4j with its own `:param` example values."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest
from click.testing import CliRunner
from kg.ingest.pipeline import Ingestor
from kg.queries import statements

from kg.cli import cli
from kg.errors import InputError, QueryError
from kg.navigate import answers
from kg.navigate.catalog import catalog, describe
from kg.navigate.changes import changes
from kg.navigate.targets import AmbiguousName, resolve
from kg.settings import Settings
from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
NAV = REPO_ROOT / "tests" / "fixtures" / "navigate"
SHOP_TESTS = {"tests/test_cart.py::test_bulk_discount", "tests/test_cart.py::test_checkout_applies_coupon"}


@pytest.fixture(scope="module")
def graph(session_store: Store) -> Store:
    """tinyshop as `shop` and the navigation fixture as `nav`, shared by the tests of this module (read-only)."""
    session_store.write("graph_wipe")
    Ingestor(session_store, TINYSHOP, repo="shop").run()
    Ingestor(session_store, NAV, repo="nav").run()
    return session_store


def column(answer: answers.Answer, name: str) -> list:
    return [row[name] for row in answer.rows]


# Warnings that depend on what the graph holds (a label, type or property no node has yet), not on the query.
DATA_DEPENDENT = {"01N50", "01N51", "01N52"}


@pytest.fixture(scope="module")
def planner(graph: Store) -> Iterator[neo4j.Session]:
    """A session that reports the planner's notifications (kg's own store turns them off)."""
    settings = graph.settings
    with neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password),
                                    notifications_min_severity="INFORMATION",
                                    warn_notification_severity="OFF") as driver:
        with driver.session(database=settings.database) as session:
            yield session


@pytest.mark.parametrize("name", [info.name for info in catalog(include_internal=True) if info.name != "schema"])
def test_query_file_plans_in_neo4j_with_its_own_param_values_and_no_warning(planner: neo4j.Session,
                                                                             name: str) -> None:
    info = describe(name)
    params = {key: planner.run(f"RETURN {literal} AS v").single()["v"] for key, literal in info.examples.items()}
    for body in statements(name):  # a file of several statements (kg.queries.statements) is planned one by one
        result = planner.run("EXPLAIN " + body, params)  # raises on a bad query or a missing parameter
        columns = result.keys()
        summary = result.consume()
        assert summary.plan and summary.plan["operatorType"].startswith(_expected_operator(body)), summary.plan
        if "/" not in name and not name.startswith("graph_wipe"):  # every question returns named columns
            assert columns and all(columns), columns
        notes = [f"{g.gql_status} {g.status_description}" for g in summary.gql_status_objects
                 if g.gql_status[:2] not in ("00", "02") and g.gql_status not in DATA_DEPENDENT]
        assert not notes, notes  # a cartesian product, a deprecated feature, an unbounded pattern...


def _expected_operator(body: str) -> str:
    """SHOW DATABASES (server/databases, run on `system`) plans as Neo4j's administration command and an index
    statement (retrieve/vector_indexes_*) as a schema command, not as a read that produces results."""
    if re.search(r"^SHOW DATABASES?\b", body, re.MULTILINE | re.IGNORECASE):
        return "AdministrationCommand"
    if index := re.search(r"^(CREATE|DROP)\b.*\bINDEX\b", body, re.MULTILINE | re.IGNORECASE):
        return index[1].capitalize() + "Index"
    return "ProduceResults"


def test_the_planner_check_sees_a_cartesian_product(planner: neo4j.Session) -> None:
    summary = planner.run("EXPLAIN MATCH (a:Module), (b:Module) RETURN a.path, b.path").consume()
    assert "03N90" in {g.gql_status for g in summary.gql_status_objects}


def test_callers_and_callees(graph: Store) -> None:
    direct = answers.callers(graph, "Cart.checkout", "shop")
    assert set(column(direct, "caller")) == {"tests.test_cart.test_bulk_discount",
                                             "tests.test_cart.test_checkout_applies_coupon"}
    assert set(column(direct, "depth")) == {1} and direct.target.qname == "shop.cart.Cart.checkout"

    transitive = answers.callers(graph, "shop.models.Order.subtotal_cents", "shop", depth=3)
    by_name = {r["caller"]: r for r in transitive.rows}
    assert by_name["shop.models.Order.total_cents"]["depth"] == 1
    assert by_name["shop.pricing.percent_off.rule"]["depth"] == 1
    assert by_name["tests.test_cart.test_bulk_discount"]["depth"] == 2  # through Order.total_cents
    assert by_name["shop.models.Order.total_cents"]["confidence"] == 1.0

    callees = answers.callees(graph, "Cart.checkout", "shop")
    found = {r["callee"]: r for r in callees.rows}
    assert "shop.pricing.bulk_discount" not in found  # passed to apply_discounts, which is what calls it
    assert found["shop.storage.OrderStore.save"]["resolution"] == "inferred"
    assert found["<builtin>.list"]["kind"] == "builtin"
    deeper = {r["callee"]: r for r in answers.callees(graph, "Cart.checkout", "shop", depth=2).rows}
    assert {"<builtin>.sum", "<builtin>.len"} <= set(deeper)
    assert deeper["shop.pricing.bulk_discount"]["depth"] == 2
    assert deeper["shop.pricing.bulk_discount"]["resolution"] == "inferred"  # the parameter carries it


def test_the_step_walk_answers_what_the_browser_query_answers(graph: Store) -> None:
    """`kg callers/callees/impact/tests-for` walk one step per query (reach.py); the Browser files match one
    shortest-path pattern. Both must give every symbol of both repositories the same nodes, depths and chain
    confidences (tests-for: the same tests, distances and reasons)."""
    symbols = graph.read_text("MATCH (s:Symbol) WHERE s.repo IN ['shop', 'nav'] AND (s)-[:CALLS]-() "
                              "RETURN s.repo AS repo, s.qname AS qname ORDER BY repo, qname")
    assert len(symbols) > 30
    compared = 0
    for s in symbols:
        for question, key in (("callers", "caller"), ("callees", "callee")):
            for depth in (1, 2, 4):
                walked = getattr(answers, question)(graph, s["qname"], s["repo"], depth=depth, limit=None).rows
                matched = graph.read(question, repo=s["repo"], qname=s["qname"], depth=depth, min_confidence=0.0,
                                     evidence="all", limit=10_000)
                assert {(r["depth"], r[key], r["kind"], r["confidence"]) for r in walked} == \
                       {(r["depth"], r[key], r["kind"], r["confidence"]) for r in matched}, (s, question, depth)
                compared += len(walked)
        for depth in (1, 3, 5):
            walked = answers.impact(graph, [s["qname"]], s["repo"], depth=depth, limit=None).rows
            matched = graph.read("impact", repo=s["repo"], qnames=[s["qname"]], depth=depth, min_confidence=0.0,
                                 evidence="all", limit=10_000)
            # equally strong chains may differ in their edge kinds (a module both imports and calls): not compared
            shape = lambda r: (r["depth"], r["dependent"], r["kind"], r["confidence"], r["evidence"],  # noqa: E731
                               len(r["via"]))
            assert {shape(r) for r in walked} == {shape(r) for r in matched}, (s, "impact", depth)
            compared += len(walked)
        for depth in (1, 4, 8):
            walked = answers.tests_for(graph, [s["qname"]], s["repo"], depth=depth, limit=None, evidence="static")
            matched = graph.read("tests_for", repo=s["repo"], qnames=[s["qname"]], depth=depth, limit=10_000)
            assert {(r["test"], r["distance"], r["how"]) for r in walked.rows} == \
                   {(r["test"], r["distance"], r["how"]) for r in matched}, (s, "tests_for", depth)
            compared += len(walked.rows)
    assert compared > 300


DIAMOND = """
def t():
    return 1


def e():
    return t()


def d():
    return e()


def b():
    return d()


def c():
    return d()


def a():
    b()
    c()
""" + "".join(f"\n\ndef x{i}():\n    return t()\n" for i in range(4))


def test_a_path_search_keeps_every_edge_into_a_node_at_its_distance(graph: Store, tmp_path: Path) -> None:
    """a → b|c → d → e → t: both paths run through d, reached from b and from c at the same distance (a search
    from both ends, tried for `kg path`, met at e and listed one path when it kept one edge per node)."""
    (tmp_path / "diamond.py").write_text(DIAMOND)
    Ingestor(graph, tmp_path, repo="diamond").run()
    try:
        found = answers.call_path(graph, "diamond.a", "diamond.t", "diamond", depth=6, limit=None)
        assert sorted([s["caller"] for s in r["steps"]] for r in found.rows) == [
            ["diamond.a", "diamond.b", "diamond.d", "diamond.e"], ["diamond.a", "diamond.c", "diamond.d", "diamond.e"]]
        assert found.total == 2
        assert answers.call_path(graph, "diamond.a", "diamond.t", "diamond", depth=3, limit=None).rows == []
        assert answers.call_path(graph, "diamond.t", "diamond.a", "diamond", depth=6, limit=None).rows == []
    finally:
        from kg.ingest.writer import GraphWriter

        GraphWriter(graph, "diamond").forget_repo()


CHAINS = """
def sink():
    return 1


def strong():
    return sink()


class A:
    def weak(self):
        return sink()


class B:
    def weak(self):
        return 2


def top(obj):
    obj.weak()  # a guess between A.weak and B.weak
    return strong()
"""


def test_a_node_reached_by_two_equally_short_chains_keeps_the_stronger(graph: Store, tmp_path: Path) -> None:
    """`top` reaches `sink` in two steps through `strong` (sure) and through `A.weak` (a 0.5 guess): its row says
    1.0 and names `strong`, whichever chain the database lists first."""
    (tmp_path / "chains.py").write_text(CHAINS)
    Ingestor(graph, tmp_path, repo="chains").run()
    try:
        rows = {r["caller"]: r for r in answers.callers(graph, "chains.sink", "chains", depth=2).rows}
        assert rows["chains.top"]["depth"] == 2
        assert (rows["chains.top"]["confidence"], rows["chains.top"]["calls"]) == (1.0, "chains.strong")
        down = {r["callee"]: r for r in answers.callees(graph, "chains.top", "chains", depth=2).rows}
        assert down["chains.sink"]["depth"] == 2 and down["chains.sink"]["confidence"] == 1.0
        assert down["chains.sink"]["from"] == "chains.strong"
        assert down["chains.A.weak"]["confidence"] < 1.0  # the guess itself stays a guess
        both = answers.call_path(graph, "chains.top", "chains.sink", "chains", depth=4, limit=None)
        assert [[s["callee"] for s in r["steps"]] for r in both.rows] == [["chains.strong", "chains.sink"],
                                                                          ["chains.A.weak", "chains.sink"]]
        assert both.total == 2 and both.rows[0]["confidence"] == 1.0 > both.rows[1]["confidence"]
        browser = graph.read("call_path", repo="chains", source="chains.top", target="chains.sink", depth=4,
                             evidence="all", limit=10)
        assert sorted(r["confidence"] for r in browser) == sorted(r["confidence"] for r in both.rows)
    finally:
        from kg.ingest.writer import GraphWriter

        GraphWriter(graph, "chains").forget_repo()


OVERRIDES = {
    "shapes.py": """
import pickle


class Base:
    def step(self):
        return 0


class Child(Base):
    def step(self):
        return helper()


def helper():
    return 1


def use(b: Base, data: bytes):
    return b.step()


def load(data: bytes):
    return use(pickle.loads(data), data)
""",
    "tests/test_shapes.py": """
from shapes import load


def test_load():
    assert load(b"") == 1
""",
}


def test_tests_for_goes_through_an_override_reached_steps_away(graph: Store, tmp_path: Path) -> None:
    """`helper` runs in `Child.step`, which overrides `Base.step`; only `Base.step` is called (`use`, through `load`
    from `test_load`). The walk from the base method starts one step out, where `Child.step` was reached."""
    for name, text in OVERRIDES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    Ingestor(graph, tmp_path, repo="overrides").run()
    try:
        rows = answers.tests_for(graph, ["shapes.helper"], "overrides", evidence="static").rows
        assert [(r["test"], r["distance"]) for r in rows] == [("tests/test_shapes.py::test_load", 4)]
    finally:
        from kg.ingest.writer import GraphWriter

        GraphWriter(graph, "overrides").forget_repo()


def test_limit_cuts_and_says_what_it_cut(graph: Store) -> None:
    cut = answers.callees(graph, "Cart.checkout", "shop", depth=2, limit=2)
    assert len(cut.rows) == 2 and cut.total > 2 and cut.truncated
    assert cut.truncation_note() == f"showing 2 of {cut.total} callees (raise the limit to see more)"


def test_impact_groups_by_depth_with_the_weakest_confidence(graph: Store) -> None:
    answer = answers.impact(graph, ["shop.pricing.bulk_discount"], "shop", depth=5)
    rows = {r["dependent"]: r for r in answer.rows}
    assert rows["shop.cart"]["depth"] == 1 and rows["shop.cart"]["via"] == ["IMPORTS"]
    # Checkout passes bulk_discount to apply_discounts, which calls it: one step further than the reference.
    assert rows["shop.pricing.apply_discounts"]["depth"] == 1 and rows["shop.pricing.apply_discounts"]["via"] == [
        "CALLS"]
    assert rows["shop.cart.Cart.checkout"]["depth"] == 2 and rows["shop.cart.Cart.checkout"]["confidence"] == 1.0
    assert rows["tests.test_cart.test_bulk_discount"]["depth"] == 3
    # A class counts with its methods, subclasses count, and a file is its module.
    store_impact = answers.impact(graph, ["shop.storage.OrderStore"], "shop", depth=1)
    assert {"shop.storage.JsonOrderStore", "shop.cart.Cart.checkout", "shop.cart"} <= set(
        column(store_impact, "dependent"))
    assert set(column(answers.impact(graph, ["shop/pricing.py"], "shop", depth=1), "dependent")) >= {"shop.cart"}
    # An override stands for the base method it overrides (a call resolved to the base may run it).
    override = answers.impact(graph, ["JsonOrderStore.save"], "shop", depth=1)
    assert "shop.cart.Cart.checkout" in column(override, "dependent")


def test_shortest_call_path(graph: Store) -> None:
    answer = answers.call_path(graph, "test_bulk_discount", "Order.subtotal_cents", "shop")
    (path,) = answer.rows
    assert path["length"] == 2
    assert [s["callee"] for s in path["steps"]] == ["shop.models.Order.total_cents", "shop.models.Order.subtotal_cents"]
    none = answers.call_path(graph, "Order.subtotal_cents", "Cart.checkout", "shop")
    assert none.rows == [] and "does not reach" in none.notes[0]


def test_tests_for_through_calls_fixtures_and_overrides(graph: Store) -> None:
    assert set(column(answers.tests_for(graph, ["bulk_discount"], "shop"), "test")) == SHOP_TESTS
    assert set(column(answers.tests_for(graph, ["helper"], "nav"), "test")) == {"tests/test_core.py::test_public_api"}
    via_fixture = answers.tests_for(graph, ["make_child"], "nav")
    assert column(via_fixture, "test") == ["tests/test_core.py::test_child"]
    assert column(via_fixture, "how") == ["fixture child"]
    assert answers.tests_for(graph, ["app.core.unused"], "nav").rows == []


def test_dead_code_respects_entry_points_and_dynamic_names(graph: Store) -> None:
    answer = answers.dead_code(graph, "nav", include_maybe=True, include_public=True, limit=100)
    status = {r["symbol"]: r["status"] for r in answer.rows}
    dead = {s for s, v in status.items() if v == "dead"}
    public = {s for s, v in status.items() if v == "public"}
    maybe = {s for s, v in status.items() if v == "maybe"}
    assert dead == {"app.core._recursive"}  # a private name: nobody outside may use it either
    # Public names of the `app` package: unused inside the project, but other projects may import them.
    assert public == {"app.core.unused", "app.core.run_plugin", "app.core.make_closure", "app.b.call_back", "app.c.see"}
    assert all(r["why"] and 0 < r["confidence"] < 1 for r in answer.rows)
    # Base.greet is only overridden (the test's `child` fixture is a Child): maybe alive, like Base.template.
    assert maybe == {"app.plugins.on_load", "app.core.Base.template", "app.core.Base.greet"}
    # app.registry.route.wrap runs: @route("/home") applies it; make_closure returns `inner` (a use by name)
    for alive in ("app.core.home", "app.exported_only", "app.__main__.main", "app.core.Child.greet",
                  "app.core.Child.template", "app.core.Child.__repr__", "tests.test_core.child",
                  "tests.test_core.test_unrelated", "app.core.helper", "app.registry.route.wrap",
                  "app.core.make_closure.inner"):
        assert alive not in status
    shop = answers.dead_code(graph, "shop", include_public=True)
    assert [(r["symbol"], r["status"]) for r in shop.rows] == [("shop.storage.JsonOrderStore", "public")]
    assert answers.dead_code(graph, "shop").rows == [] and "1 public names" in answers.dead_code(graph, "shop").notes[0]
    # newuser5 #9: the footer said "include_public / --public lists them", the library argument leaking into the CLI
    assert answers.dead_code(graph, "shop").notes[0].endswith("(other projects may use them): `kg dead-code --public` "
                                                            "lists them")


def test_import_cycles(graph: Store) -> None:
    rows = answers.cycles(graph, "nav").rows
    assert {(tuple(r["modules"]), tuple(r["lines"])) for r in rows} == {(("app.a", "app.b"), (1, 1)),
                                                                        (("app.c", "app.d"), (1, 1))}
    assert answers.cycles(graph, "shop").rows == []


def test_hotspots_find_and_module_summary(graph: Store) -> None:
    top = answers.hotspots(graph, "shop", limit=1).rows[0]
    assert (top["symbol"], top["fan_in"], top["callers"]) == ("shop.cart.Cart.checkout", 2, 2)

    found = answers.find(graph, "checkout", "shop")
    assert found.rows[0]["qname"] == "shop.cart.Cart.checkout" and found.rows[0]["match"] == "exact"
    lucene = answers.find(graph, "chekout~", "shop")  # full-text syntax is used as typed
    assert lucene.rows[0]["qname"] == "shop.cart.Cart.checkout" and lucene.rows[0]["match"] == "full-text"
    with pytest.raises(InputError, match=r"^cannot search for 'a AND': Lucene cannot read it \(Encountered") as bad:
        answers.find(graph, "a AND", "shop")  # attack6 D7: was Lucene's raw parser error, Java class and all
    assert "org.apache" not in str(bad.value) and "\n" not in str(bad.value)
    typo = answers.find(graph, "chekout", "shop")  # a plain typo is found without any syntax
    assert typo.rows[0]["qname"] == "shop.cart.Cart.checkout" and typo.rows[0]["match"] == "typo"
    assert "shop.pricing.bulk_discount" in column(answers.find(graph, "cents", "shop"), "qname")  # its docstring
    # several words: a name near one of them, or docstring words; more words matched rank first
    assert answers.find(graph, "Cart checkout", "shop").rows[0]["qname"] == "shop.cart.Cart.checkout"
    words = answers.find(graph, "cents beyond tenth", "shop")
    assert (words.rows[0]["qname"], words.rows[0]["match"]) == ("shop.pricing.bulk_discount", "docstring")

    summary = answers.module_summary(graph, "shop/cart.py", "shop")
    assert column(summary["interface"], "symbol") == ["shop.cart.Cart", "shop.cart.Cart.__init__",
                                                      "shop.cart.Cart.add", "shop.cart.Cart.checkout"]
    deps = {(r["direction"], r["module"]) for r in summary["dependencies"].rows}
    assert ("imports", "shop.pricing") in deps and ("imported_by", "tests.test_cart") in deps


def test_a_name_resolves_in_the_current_folders_repository_first(graph: Store, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --repo a name is looked up in the repository of the current folder first; found only in another,
    the answer says so (it was silent, and a name in both was called ambiguous even from inside one of them)."""
    copy = tmp_path / "shop-copy"
    shutil.copytree(TINYSHOP, copy)
    Ingestor(graph, copy, repo="copy").run()
    try:
        monkeypatch.chdir(copy / "shop")
        assert resolve(graph, "Cart.checkout").repo == "copy"
        assert resolve(graph, "shop/cart.py:20").repo == "copy"
        own = answers.callers(graph, "Cart.checkout")
        assert own.target.repo == "copy" and not any("not in" in n for n in own.notes)
        other = answers.callers(graph, "app.core.helper")  # only in nav
        assert "app.core.helper is not in copy (the current folder's repository): this answer is about nav" \
            in other.notes
        assert any("is not in copy" in n for n in answers.impact(graph, ["app.core.helper"], depth=1).notes)
        with pytest.raises(InputError) as misspelled:  # the folder's repository's names are suggested first
            resolve(graph, "Cart.chekout")
        assert "closest: shop.cart.Cart.checkout (copy)" in str(misspelled.value), str(misspelled.value)
        monkeypatch.chdir(TINYSHOP / "shop")  # the repository `shop`, which sorts after `copy`
        with pytest.raises(InputError) as misspelled:
            resolve(graph, "Cart.chekout")
        assert "closest: shop.cart.Cart.checkout (shop)" in str(misspelled.value), str(misspelled.value)
        monkeypatch.chdir(NAV)
        assert resolve(graph, "app.core.helper").elsewhere is None
        with pytest.raises(AmbiguousName) as both:  # in shop and copy, neither of them the folder's
            resolve(graph, "Cart.checkout")
        # one name in two repositories: no longer name would help (the message asked for one), and the list is not
        # `repo:qname`, which no command takes
        assert str(both.value).startswith("'Cart.checkout' is in 2 repositories (copy, shop): pass --repo with one")
        assert "  shop.cart.Cart.checkout (method, shop/cart.py:16) in copy" in str(both.value)
    finally:
        from kg.ingest.writer import GraphWriter

        GraphWriter(graph, "copy").forget_repo()


def test_symbol_resolution(graph: Store) -> None:
    assert resolve(graph, "shop/cart.py:20").qname == "shop.cart.Cart.checkout"
    assert resolve(graph, "shop/cart.py:2").kind == "module"
    assert resolve(graph, "shop/storage.py").qname == "shop.storage"
    assert resolve(graph, "shop.cart.Cart").kind == "class"
    with pytest.raises(AmbiguousName) as ambiguous:
        resolve(graph, "save")
    assert {c.qname for c in ambiguous.value.candidates} == {"shop.storage.OrderStore.save",
                                                             "shop.storage.JsonOrderStore.save"}
    with pytest.raises(InputError, match="no symbol or module named 'nope'"):
        resolve(graph, "nope")
    with pytest.raises(InputError, match="is a module"):
        answers.callers(graph, "shop.cart", "shop")
    with pytest.raises(InputError, match="depth must be between 1 and 10"):
        answers.callers(graph, "Cart.checkout", "shop", depth=11)
    lines = len((TINYSHOP / "shop" / "cart.py").read_text().splitlines())
    assert resolve(graph, f"shop/cart.py:{lines}", "shop").path == "shop/cart.py"
    with pytest.raises(InputError, match=f"has {lines} lines in the graph, so line {lines + 1} is past its end"):
        resolve(graph, f"shop/cart.py:{lines + 1}", "shop")  # was the module: "shop.cart is a module"
    with pytest.raises(InputError, match="lines count from 1"):
        resolve(graph, "shop/cart.py:0", "shop")
    with pytest.raises(InputError, match="no repository named 'nowhere'"):
        answers.find(graph, "checkout", "nowhere")  # was "none", as if the repository had no such name


def test_path_line_as_an_editor_or_a_traceback_gives_it(graph: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser3 #4: only `shop/cart.py:20` (relative to the ingested root) was found; an absolute path and one
    relative to the current folder said "no file … in the graph"."""
    monkeypatch.chdir(TINYSHOP / "shop")
    for given in (f"{TINYSHOP / 'shop' / 'cart.py'}:20", "cart.py:20", "./cart.py:20", "../shop/cart.py:20"):
        target = resolve(graph, given)
        assert (target.qname, target.path, target.repo) == ("shop.cart.Cart.checkout", "shop/cart.py", "shop"), given
    with pytest.raises(InputError, match="relative to the ingested root or to the current folder, or absolute"):
        resolve(graph, "/nowhere/cart.py:20")


def test_queries_run_read_only(graph: Store) -> None:
    with pytest.raises(QueryError, match="refused"):
        answers.run_cypher(graph, "CREATE (:Intruder) RETURN 1 AS one")
    with pytest.raises(QueryError):
        answers.run_query(graph, "ingest/repo_node_delete", {"repo": "shop"})
    assert graph.read_text("MATCH (r:Repo {name: 'shop'}) RETURN count(r) AS n")[0]["n"] == 1
    assert answers.run_query(graph, "callers", {"repo": "shop", "qname": "shop.cart.Cart.checkout", "depth": 1,
                                                "min_confidence": 0, "evidence": "all"}).total == 2
    with pytest.raises(InputError, match="needs qname"):
        answers.run_query(graph, "callers", {"repo": "shop"})


def test_cli(graph: Store, graph_settings: Settings) -> None:
    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    runner = CliRunner()

    def kg(*args: str):
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)

    ok = kg("callers", "Cart.checkout", "--repo", "shop", "--json")
    assert ok.exit_code == 0 and '"caller": "tests.test_cart.test_bulk_discount"' in ok.output
    ambiguous = kg("callers", "save")
    assert ambiguous.exit_code == 1
    assert ambiguous.output.splitlines()[0].startswith("error: 'save' is ambiguous (2 candidates)")
    assert "--repo" not in ambiguous.output.splitlines()[0]  # both are in shop: --repo would not help
    assert "shop.storage.JsonOrderStore.save" in ambiguous.output
    unknown = kg("impact", "nope", "--repo", "shop")
    assert unknown.exit_code == 1 and len(unknown.output.strip().splitlines()) == 1
    write = kg("query", "ingest/repo_node_delete", "--param", "repo=shop")
    assert write.exit_code == 1 and "refused" in write.output and len(write.output.strip().splitlines()) == 1
    listed = kg("query", "--list")
    assert listed.exit_code == 0 and "tests_for" in listed.output
    tests = kg("tests-for", "bulk_discount", "--repo", "shop", "--pytest")
    assert set(tests.output.split()) == SHOP_TESTS
    none = kg("tests-for", "app.a.ay", "--repo", "nav", "--pytest")  # `pytest $(…)` gets nothing; a person, why
    assert none.exit_code == 0 and none.stdout == "" and none.stderr.startswith("no test reaches 'app.a.ay'")
    for args in (["impact", "shop/pricing.py", "--repo", "shop"], ["path", "test_bulk_discount", "Order.total_cents"],
                 ["cycles", "--repo", "nav"], ["dead-code", "--repo", "nav", "--maybe"], ["hotspots"],
                 ["find", "checkout"], ["query", "hotspots", "--param", "repo=shop"]):
        result = kg(*args)
        assert result.exit_code == 0, (args, result.output)


def test_changes_maps_a_diff_to_symbols_and_tests(graph: Store, tmp_path: Path) -> None:
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    run = lambda *a: subprocess.run(["git", "-C", str(work), *a], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("add", "-A")
    run("-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", "start")
    pricing = work / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("* 5", "* 7"))
    Ingestor(graph, work, repo="shop-changes").run()
    try:
        report = changes(graph, work)
        assert report.repo == "shop-changes"
        assert [(c["qname"], c["lines"]) for c in report.changed] == [("shop.pricing.bulk_discount", "20")]
        assert set(report.pytest_args()) == SHOP_TESTS
        assert "shop.cart.Cart.checkout" in column(report.impact, "dependent")
        run("add", "-A")
        assert changes(graph, work, staged=True).changed[0]["qname"] == "shop.pricing.bulk_discount"
        assert changes(graph, work, since="HEAD", diff="").changed == []
        with pytest.raises(InputError, match="'no-such-revision' names no commit"):
            changes(graph, work, since="no-such-revision")
    finally:
        from kg.ingest.writer import GraphWriter

        GraphWriter(graph, "shop-changes").forget_repo()


def test_an_ingest_cut_short_before_any_module_is_said_everywhere(graph: Store, tmp_path: Path) -> None:
    """newuser4: a first ingest killed before it wrote a module left a Repo marked as being written and nothing
    else; `kg changes` said "no changed code" and callers said "no symbol … nor any name close to it", never that the
    ingest had not finished. An unknown --repo was reported as a missing symbol."""
    from kg.ingest.writer import GraphWriter

    from kg.navigate.changes import changes

    root = tmp_path / "cut"
    shutil.copytree(TINYSHOP, root)
    writer = GraphWriter(graph, "cut")
    writer.put_repo(str(root), "target", writing=True)  # what a first ingest does before its first file
    try:
        with pytest.raises(InputError) as missing:
            resolve(graph, "Cart.checkout", "cut")
        assert "repository cut was not completely ingested" in str(missing.value)
        report = changes(graph, root, "cut", diff="diff --git a/shop/cart.py b/shop/cart.py\n--- a/shop/cart.py\n"
                                                 "+++ b/shop/cart.py\n@@ -20 +20 @@\n-a\n+b\n")
        assert report.changed == [] and "was not completely ingested" in (report.warning() or "")
        with pytest.raises(InputError, match="no repository named 'nope' in the graph"):
            resolve(graph, "Cart.checkout", "nope")
    finally:
        writer.forget_repo()
