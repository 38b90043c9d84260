"""Answers on real code: requests 2.32.3 from its PyPI sdist, ingested into the real Neo4j once for this module.

What a new user saw go wrong there: callees printed the callee's file with the caller's line, dead code listed
properties read as attributes (`Response.ok`, `.text`) and public API (`Session.post`), and `kg find` found nothing
for a typo or a name's first words while every wrong-name error pointed at it.
"""

from __future__ import annotations

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import InputError
from kg.navigate import answers
from kg.navigate.targets import resolve
from kg.store import Store
from tests.sdists import sdist

REPO = "requests"


@pytest.fixture(scope="module")
def graph(session_store: Store) -> Store:
    session_store.write("graph_wipe")
    Ingestor(session_store, sdist("requests", "2.32.3"), repo=REPO).run()
    return session_store


def test_callees_show_the_call_site_and_the_definition_apart(graph: Store) -> None:
    send = resolve(graph, "Session.send", REPO)
    rows = {r["callee"]: r for r in answers.callees(graph, "Session.send", REPO, limit=200).rows}
    hook = rows["requests.hooks.dispatch_hook"]
    assert (hook["path"], hook["line"]) == ("src/requests/hooks.py", 22)  # where dispatch_hook is defined
    assert hook["call_path"] == "src/requests/sessions.py" and send.line <= hook["call_line"] <= send.end_line
    for row in rows.values():
        if row["path"] is not None:  # a project symbol: its own definition, never the caller's line
            definition = resolve(graph, row["callee"], REPO)
            assert (row["path"], row["line"]) == (definition.path, definition.line)
        assert row["call_path"] == send.path and send.line <= row["call_line"] <= send.end_line


def test_callers_show_the_call_site_and_where_each_caller_is_defined(graph: Store) -> None:
    rows = answers.callers(graph, "dispatch_hook", REPO).rows
    send = next(r for r in rows if r["caller"] == "requests.sessions.Session.send")
    definition = resolve(graph, "Session.send", REPO)
    assert (send["path"], send["line"]) == (definition.path, definition.line)
    assert send["call_path"] == definition.path and definition.line < send["call_line"] <= definition.end_line


def test_dead_code_leaves_out_properties_that_are_read_public_api_and_dunders(graph: Store) -> None:
    everything = answers.dead_code(graph, REPO, include_maybe=True, include_public=True, limit=1000)
    listed = {r["symbol"]: r for r in everything.rows}
    for read in ("requests.models.Response.ok", "requests.models.Response.text", "requests.models.Response.content"):
        assert read not in listed, f"{read} is a property the project reads"
    assert not any(s.rsplit(".", 1)[-1].startswith("__") and s.endswith("__") for s in listed)
    for api in ("requests.sessions.Session.post", "requests.sessions.Session.put"):
        assert listed[api]["status"] == "public"
    assert all(r["why"] and 0 < r["confidence"] < 1 for r in everything.rows)
    default = answers.dead_code(graph, REPO, limit=1000)
    assert {r["status"] for r in default.rows} == {"dead"}
    assert not any(r["symbol"].startswith("requests.") and not r["symbol"].split(".")[1].startswith("_")
                   for r in default.rows), "public names of the package are not `dead` by default"
    assert any("public names" in n and "--public" in n for n in default.notes)


@pytest.mark.parametrize(("typed", "first", "how"), [
    ("Sesion", "requests.sessions.Session", "typo"),
    ("get_netrc", "requests.utils.get_netrc_auth", "prefix"),
    ("netrc_auth", "requests.utils.get_netrc_auth", "parts"),
    ("HTTPAdaptr", "requests.adapters.HTTPAdapter", "typo"),
    ("Session", "requests.sessions.Session", "exact"),
])
def test_find_is_fuzzy_and_ranks_near_matches_first(graph: Store, typed: str, first: str, how: str) -> None:
    rows = answers.find(graph, typed, REPO).rows
    assert rows[0]["match"] == how and first in [r["qname"] for r in rows if r["score"] == rows[0]["score"]]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_a_wrong_name_says_which_names_are_closest(graph: Store) -> None:
    with pytest.raises(InputError) as wrong:
        resolve(graph, "Sesion.send", REPO)
    assert "closest: requests.sessions.Session.send" in str(wrong.value)
    with pytest.raises(InputError, match="get_netrc_auth"):
        answers.impact(graph, ["get_netrc"], REPO)
    with pytest.raises(InputError, match="nor any name close to it"):
        resolve(graph, "qqqzzzxx", REPO)
