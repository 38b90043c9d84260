"""Every query file documents itself for Neo4j Browser: what it answers in `//` comments, `:param` lines with example
values for every parameter, bounded variable-length patterns only. Checked without a database; the internal files
(agent/, ingest/, export/, schema) follow the same rules as the navigation questions."""

from __future__ import annotations

import re

import pytest

from kg import queries
from kg.navigate.catalog import catalog, describe, source

NAVIGATION = [info.name for info in catalog()]
EVERY_FILE = queries.names()
REQUIRED = {"callers", "callees", "impact", "call_path", "tests_for", "import_cycles", "dead_code", "hotspots",
            "module_interface", "find_symbol", "search_symbols", "module_dependencies"}


def test_every_question_of_the_issue_has_a_file() -> None:
    assert REQUIRED <= set(NAVIGATION)


def test_every_file_is_checked_agent_and_ingest_included() -> None:
    assert {"agent/context_state", "ingest/symbols_put", "export/callgraph", "schema"} <= set(EVERY_FILE)
    assert set(NAVIGATION) < set(EVERY_FILE)


@pytest.mark.parametrize("name", EVERY_FILE)
def test_file_opens_with_a_question_and_gives_every_parameter(name: str) -> None:
    text = source(name)
    assert text.lstrip().startswith("//"), "the file must open with a comment saying what it answers"
    info = describe(name)
    assert "?" in info.first_line or info.first_line.endswith("."), info.first_line
    missing = set(info.used) - set(info.examples)
    assert not missing, f"parameters without a :param line: {missing}"
    assert not set(info.examples) - set(info.used), "a :param line for a parameter the query does not use"


@pytest.mark.parametrize("name", EVERY_FILE)
def test_variable_length_patterns_are_bounded(name: str) -> None:
    # string literals hold regular expressions, not patterns: blank them first
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", catalog_text(name))
    assert not re.search(r"\*\s*\]|\*\s*\.\.\s*\]|\]->\+|\]-\+|\]\s*[-<>]*\s*\*|\{\s*\d*\s*,\s*\}", text), \
        "an unbounded variable-length pattern"
    for low, high in re.findall(r"\{(\d+),(\d+)\}", text):
        assert int(high) <= 10, f"pattern bound {{{low},{high}}} above the cap of 10"


def catalog_text(name: str) -> str:
    """The query without its comments."""
    return "\n".join(line for line in queries.load(name).splitlines() if not line.lstrip().startswith("//"))


def test_description_parses_param_lines() -> None:
    info = describe("impact")
    assert info.examples["qnames"] == "['shop.pricing.bulk_discount']"
    assert info.examples["depth"] == "5"
    assert info.used[:2] == ("qnames", "repo")
    assert info.first_line.startswith("What may break if these symbols or modules change")


def test_unknown_query_is_a_clear_error() -> None:
    with pytest.raises(queries.QueryNotFound, match="kg query --list"):
        describe("no_such_query")
