"""The ranking behind `kg find` and the "closest names" of a wrong name, and the Browser header's map parser.
Pure functions, no database."""

from __future__ import annotations

import pytest

from kg.navigate.catalog import describe, map_entries
from kg.navigate.guide import cypher_literal, params_line
from kg.navigate.names import edit_distance, is_lucene, lucene_query, match, words


def test_words_split_camel_snake_and_acronyms() -> None:
    assert words("get_netrc_auth") == ["get", "netrc", "auth"]
    assert words("getNetrcAuth") == ["get", "netrc", "auth"]
    assert words("HTTPAdapter") == ["http", "adapter"]
    assert words("SessionRedirectMixin") == ["session", "redirect", "mixin"]


@pytest.mark.parametrize(("typed", "name", "kind"), [
    ("Session", "Session", "exact"),
    ("session", "Session", "exact"),
    ("get_netrc", "get_netrc_auth", "prefix"),
    ("netrc_auth", "get_netrc_auth", "parts"),
    ("getNetrc", "get_netrc_auth", "parts"),
    ("netrc", "get_netrc_auth", "contains"),
    ("Sesion", "Session", "typo"),
    ("HTTPAdaptr", "HTTPAdapter", "typo"),
    ("Cart.checkut", "checkout", "typo"),
])
def test_match_kinds(typed: str, name: str, kind: str) -> None:
    found = match(typed, name)
    assert found is not None and found.kind == kind


def test_ranking_puts_exact_then_prefix_then_parts_then_contains_then_typos() -> None:
    pairs = [("session", "session"), ("sess", "session"), ("get_auth", "get_netrc_auth"), ("netrc", "get_netrc_auth"),
             ("sesion", "session")]
    scores = [match(t, n).score for t, n in pairs]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)


def test_unrelated_and_too_distant_names_do_not_match() -> None:
    assert match("zzz", "session") is None
    assert match("sssion", "request") is None
    assert match("ab", "cd") is None  # one edit at most for short names


def test_edit_distance_stops_early_past_the_limit() -> None:
    assert edit_distance("sesion", "session", 2) == 1
    assert edit_distance("kitten", "sitting", 3) == 3
    assert edit_distance("a", "abcdef", 2) == 3  # limit + 1


def test_lucene_query_asks_for_name_prefix_typo_substring_and_parts() -> None:
    query = lucene_query("getNetrcAuth")
    assert "name:getnetrcauth^8" in query and "name:getnetrcauth*^4" in query and "name:*getnetrcauth*^2" in query
    assert "name:getnetrcauth~2^2" in query and "name:*netrc*" in query and "name:*auth*" in query
    assert lucene_query("a.b.Sesion").startswith("name:sesion^8")
    assert lucene_query("...") == ""
    assert is_lucene("chekout~") and is_lucene("check*") and not is_lucene("get_netrc") and not is_lucene("Cart.x")


def test_params_header_parses_into_one_literal_per_parameter() -> None:
    assert map_entries("{repo: 'a,b', qnames: ['x', 'y'], depth: 5, rows: [{path: 'p', line: 2}], n: null}") == {
        "repo": "'a,b'", "qnames": "['x', 'y']", "depth": "5", "rows": "[{path: 'p', line: 2}]", "n": "null"}
    assert map_entries("{s: 'it\\'s, here'}") == {"s": "'it\\'s, here'"}
    with pytest.raises(ValueError, match="key: value"):
        map_entries("{justavalue}")
    info = describe("callers")
    assert info.params_line.startswith(":params {repo: 'tinyshop', qname: ")
    assert "MATCH (target:Symbol" in info.body and ":params" not in info.body


def test_cypher_literals_for_the_guide() -> None:
    assert cypher_literal("it's") == "'it\\'s'"
    assert cypher_literal([1, 0.5, None, True]) == "[1, 0.5, null, true]"
    assert params_line({"repo": "r", "qnames": ["a.b"]}) == ":params {repo: 'r', qnames: ['a.b']}"
