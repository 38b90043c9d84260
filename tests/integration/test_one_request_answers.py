"""`kg callers`, `kg callees` and `kg impact` answer in one request (queries/reach/answer.cypher: the name looked up,
the current folder's repository preferred, the walk and the rows): the same rows, totals, targets and errors as the
walk a step at a time (kg/navigate/reach.py), which they replaced on the CLI's path. Real Neo4j; real code (requests
2.32.3 from its PyPI sdist) and two real copies of tinyshop for the current folder's preference."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import InputError
from kg.navigate import answers
from kg.navigate.targets import resolve_all
from kg.query_api import QueryApiReader
from kg.settings import Settings
from kg.store import Store
from tests.sdists import sdist

REPO = "requests"
TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


class Counting:
    """A real reader that counts the named reads it is asked for (the requests a CLI answer makes)."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.names: list[str] = []

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.names.append(name)
        return self.reader.read(name, **params)


@pytest.fixture(scope="module")
def graph(session_store: Store) -> Store:
    session_store.write("graph_wipe")
    Ingestor(session_store, sdist("requests", "2.32.3"), repo=REPO).run()
    return session_store


@pytest.fixture
def reader(graph: Store, graph_settings: Settings) -> QueryApiReader:
    return QueryApiReader(graph_settings)


CASES = [
    ("callers", ["dispatch_hook"], 1, 0.0, "all"),
    ("callers", ["Session.send"], 3, 0.0, "all"),
    ("callers", ["requests.utils.get_netrc_auth"], 4, 0.7, "static"),
    ("callees", ["Session.send"], 1, 0.0, "all"),
    ("callees", ["requests.sessions.Session.request"], 3, 0.0, "all"),
    ("impact", ["requests.models.Response.json"], 5, 0.0, "all"),
    ("impact", ["requests.utils", "Session.send"], 3, 0.0, "all"),  # a module with everything it defines
    ("impact", ["requests.adapters.HTTPAdapter.send"], 4, 0.0, "all"),  # a method and the base one it overrides
    ("impact", ["Session.send"], 4, 0.6, "static"),
]


@pytest.mark.parametrize(("question", "names", "depth", "min_confidence", "evidence"), CASES,
                         ids=lambda v: str(v) if not isinstance(v, list) else "+".join(v))
@pytest.mark.parametrize("limit", [5, None])
def test_one_request_gives_what_the_walk_a_step_at_a_time_gives(reader: QueryApiReader, question: str,
                                                                 names: list[str], depth: int, min_confidence: float,
                                                                 evidence: str, limit: int | None) -> None:
    counted = Counting(reader)
    targets, rows, total, notes = answers._answer(counted, question, names, REPO, depth, min_confidence, limit,
                                                  evidence)
    assert counted.names == ["reach/answer"]  # the mark of an unfinished ingest included
    stepped = Counting(reader)
    assert (targets, rows, total, notes) == answers._answer(stepped, question, names, REPO, depth, min_confidence,
                                                            limit, evidence, one_request=False)
    assert len(stepped.names) > 2 and total > 0 and len(rows) == (total if limit is None else min(limit, total))
    by_step = answers._answer(reader, question, names, REPO, depth, min_confidence, limit, evidence,
                              one_request=False)[1]
    assert [list(r) for r in rows] == [list(r) for r in by_step]  # --json prints the keys in the same order


def test_the_answers_are_whole_through_the_driver_too(graph: Store) -> None:
    answer = answers.callers(graph, "dispatch_hook", REPO, depth=2, limit=None)
    by_step = answers._answer(graph, "callers", ["dispatch_hook"], REPO, 2, 0.0, None, "all", one_request=False)
    assert answer.rows == by_step[1] and answer.total == by_step[2] > 1
    assert {"depth", "caller", "call_path", "call_line", "calls", "resolution"} <= set(answer.rows[0])


@pytest.mark.parametrize("question", ["callers", "callees", "impact"])
@pytest.mark.parametrize("name", ["no_such_function_anywhere", "send", "Session.sned"])
def test_an_unknown_or_ambiguous_name_gives_the_same_one_line_error(reader: QueryApiReader, question: str,
                                                                    name: str) -> None:
    with pytest.raises(InputError) as before:
        resolve_all(reader, [name], REPO)
    with pytest.raises(InputError) as now:
        answers._answer(reader, question, [name], REPO, 1, 0.0, 50, "all")
    assert str(now.value) == str(before.value)


def test_a_module_is_refused_by_callers_with_the_same_hint(reader: QueryApiReader) -> None:
    with pytest.raises(InputError, match=r"requests.utils is a module; callers needs a function.*kg impact"):
        answers.callers(reader, "requests.utils", REPO)


@pytest.mark.parametrize(("source", "target", "depth", "reached"), [
    ("Session.request", "dispatch_hook", 6, True),  # reached in a few steps
    ("requests.api.get", "requests.sessions.Session.send", 4, True),
    ("dispatch_hook", "Session.request", 6, False),  # no path: the same note
    ("Session.send", "Session.send", 6, None),  # from itself to itself: only a cycle would do
])
@pytest.mark.parametrize("limit", [1, None])
def test_a_call_path_in_one_request_is_the_one_call_path_gives(reader: QueryApiReader, source: str, target: str,
                                                              depth: int, reached: bool | None,
                                                              limit: int | None) -> None:
    counted = Counting(reader)
    answer = answers.call_path(counted, source, target, REPO, depth, limit)
    assert counted.names == ["call_path_answer"]
    assert reached is None or bool(answer.rows) == reached
    by_step = answers.call_path(reader, source, target, REPO, depth, limit, one_request=False)
    assert answer == by_step and [list(r) for r in answer.rows] == [list(r) for r in by_step.rows]


@pytest.mark.parametrize(("source", "target"), [("send", "dispatch_hook"), ("Session.send", "no_such_function"),
                                                ("requests.utils", "dispatch_hook")])
def test_a_call_path_between_wrong_names_gives_the_same_error(reader: QueryApiReader, source: str,
                                                              target: str) -> None:
    with pytest.raises(InputError) as before:
        answers.call_path(reader, source, target, REPO, one_request=False)
    with pytest.raises(InputError) as now:
        answers.call_path(reader, source, target, REPO)
    assert str(now.value) == str(before.value)


def test_a_method_a_class_inherits_is_found_through_its_bases(reader: QueryApiReader) -> None:
    """newuser4 #8: `kg callers Flask.route` said "no symbol"; route is Scaffold's, inherited by Flask. Here requests'
    Session inherits resolve_redirects from SessionRedirectMixin: the answers are about the base's method and say
    so; a member no base defines is still unknown."""
    inherited = "requests.sessions.SessionRedirectMixin.resolve_redirects"
    note = ("requests.sessions.Session does not define resolve_redirects: this answer is about "
            f"{inherited}, which it inherits")
    callers = answers.callers(reader, "Session.resolve_redirects", REPO)
    assert callers.target.qname == inherited and note in callers.notes
    assert "requests.sessions.Session.send" in [r["caller"] for r in callers.rows]
    assert answers.impact(reader, ["Session.resolve_redirects"], REPO, depth=1).target.qname == inherited
    assert note in answers.tests_for(reader, ["requests.sessions.Session.resolve_redirects"], REPO).notes
    assert answers.callers(reader, "Session.send", REPO).target.qname == "requests.sessions.Session.send"
    with pytest.raises(InputError, match="no symbol or module named 'Session.no_such_member'"):
        answers.callers(reader, "Session.no_such_member", REPO)


# Last: the `store` fixture empties the graph the tests above share.
def test_the_current_folders_repository_is_preferred_in_the_one_request(store: Store, graph_settings: Settings,
                                                                       tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("shop-a", "shop-b"):
        shutil.copytree(TINYSHOP, tmp_path / name)
        Ingestor(store, tmp_path / name, repo=name).run()
    reader = QueryApiReader(graph_settings)
    for inside in ("shop-a", "shop-b"):
        monkeypatch.chdir(tmp_path / inside / "shop")
        counted = Counting(reader)
        answer = answers.callers(counted, "Order.subtotal_cents", limit=None)
        assert counted.names == ["reach/answer"] and answer.target.repo == inside and answer.rows
        assert answer.rows == answers._answer(reader, "callers", ["Order.subtotal_cents"], None, 1, 0.0, None, "all",
                                              one_request=False)[1]
    monkeypatch.chdir(tmp_path)  # in neither: the name is in both, so it is ambiguous, as before
    with pytest.raises(InputError, match="is in 2 repositories"):
        answers.impact(reader, ["Order.subtotal_cents"])
    # a path:line is no name: it is resolved first, then walked a step at a time
    counted = Counting(reader)
    answer = answers.callers(counted, "shop/models.py:28", "shop-a")
    assert counted.names[0] == "find_symbol" and answer.target.qname == "shop.models.Order.subtotal_cents"
    assert answer.rows == answers.callers(reader, "shop.models.Order.subtotal_cents", "shop-a").rows



def test_a_member_beyond_the_bases_looked_at_says_so(store: Store, graph_settings: Settings, tmp_path: Path) -> None:
    """attack5 C7: in a chain `class C{i}(C{i-1})` with only C0 defining m, `C10.m` is found ten bases up, but
    `C11.m` said "no symbol … named 'C11.m'; closest: pk.chain.C0.m", as if nothing were there. It now says the
    bases go further than kg looks. A member of a class with a short chain is still plainly unknown."""
    (tmp_path / "pk").mkdir()
    (tmp_path / "pk" / "__init__.py").write_text("")
    chain = ["class C0:\n    def m(self):\n        return 0\n"] + [f"class C{i}(C{i - 1}):\n    pass\n"
                                                                    for i in range(1, 13)]
    (tmp_path / "pk" / "chain.py").write_text("\n\n".join(chain) + "\n\ndef use(c: C12):\n    return c.m()\n")
    Ingestor(store, tmp_path, repo="chain").run()
    reader = QueryApiReader(graph_settings)
    assert answers.callers(reader, "pk.chain.C10.m", "chain").target.qname == "pk.chain.C0.m"
    for far in ("pk.chain.C11.m", "C12.m"):
        with pytest.raises(InputError) as error:
            answers.callers(reader, far, "chain")
        owner = "pk.chain." + far.removeprefix("pk.chain.").split(".")[0]
        assert str(error.value) == (f"{owner} does not define m, nor does any of its base classes within 10 steps, "
                                    "and its bases go further than kg looks: name the class that defines it (try "
                                    "`kg find m` for fuzzy matches)")
    with pytest.raises(InputError, match=r"^no symbol or module named 'C3.nope' in repository 'chain'"):
        answers.callers(reader, "C3.nope", "chain")
