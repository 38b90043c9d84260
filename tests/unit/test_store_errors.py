"""Every error the Neo4j driver raises leaves kg as one line that says what to do.

The server states behind some of these (a database that is not online, a transaction log that cannot be
written) cannot be produced on demand on Neo4j Community without filling a disk, which the server's own disk-full
test does; here the driver's own exception objects, built by its own hydration from the status codes the server
sends, go through kg's mapping. A real deadlock, timeout, refused query and lost server are in the integration
tests (test_repo_names_and_concurrency, test_readonly, test_crash)."""

from __future__ import annotations

import pytest
from neo4j import exceptions as neo4j_errors

from kg import settings as kg_settings
from kg.errors import GraphFailed, GraphUnavailable, InputError, KgError, QueryError
from kg.store import map_neo4j_errors

SERVER_ERRORS = [
    ("Neo.TransientError.General.DatabaseUnavailable", GraphFailed, "is not online"),
    ("Neo.TransientError.Transaction.DeadlockDetected", GraphFailed, "run the command again"),
    ("Neo.TransientError.Transaction.Outdated", GraphFailed, "run the command again"),
    ("Neo.TransientError.General.MemoryPoolOutOfMemoryError", QueryError, "more memory than Neo4j allows"),
    # attack6 D3: a query that fills the heap fails the same way every time, so not "run the command again"
    ("Neo.TransientError.General.OutOfMemoryError", QueryError, "more memory than Neo4j allows"),
    ("Neo.DatabaseError.Transaction.TransactionLogError", GraphFailed, "check free disk space"),
    ("Neo.DatabaseError.General.UnknownError", GraphFailed, "kg server logs"),
    ("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration", QueryError, "ran out of time"),
    ("Neo.ClientError.Statement.SyntaxError", QueryError, "Neo4j refused the query"),
    ("Neo.ClientError.Security.Unauthorized", KgError, "NEO4J_PASSWORD"),
]
DRIVER_ERRORS = [
    (neo4j_errors.ServiceUnavailable("gone"), GraphUnavailable, "cannot reach Neo4j"),
    (neo4j_errors.SessionExpired("expired"), GraphUnavailable, "cannot reach Neo4j"),
    (neo4j_errors.IncompleteCommit("unknown outcome"), GraphUnavailable, "run the command again"),
    (neo4j_errors.ResultConsumedError(None, "consumed"), GraphUnavailable, "run the command again"),
    (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), InputError, "not valid text"),
    (OverflowError("Integer 10000000000000000000000 out of range"), InputError, "64 bits"),
]


def settings() -> kg_settings.Settings:
    return kg_settings.load({"bolt_port": 17749, "http_port": 17748})


@pytest.mark.parametrize("code, kind, phrase", SERVER_ERRORS)
def test_server_errors_become_one_kg_line(code: str, kind: type, phrase: str) -> None:
    error = neo4j_errors.Neo4jError._hydrate_neo4j(code=code, message="first line of the server's message\nsecond")
    with pytest.raises(kind) as mapped:
        with map_neo4j_errors(settings()):
            raise error
    assert "\n" not in str(mapped.value) and phrase in str(mapped.value)
    assert "second" not in str(mapped.value)
    assert "retrying" not in str(mapped.value)  # attack4 B7: a refusal after 3 s claimed 30 s of retries


@pytest.mark.parametrize("error, kind, phrase", DRIVER_ERRORS)
def test_driver_errors_become_one_kg_line(error: Exception, kind: type, phrase: str) -> None:
    with pytest.raises(kind) as mapped:
        with map_neo4j_errors(settings()):
            raise error
    assert "\n" not in str(mapped.value) and phrase in str(mapped.value)


def test_a_long_server_message_is_cut() -> None:
    error = neo4j_errors.Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError",
                                                   message="Invalid input '" + "x" * 100_000 + "'")
    with pytest.raises(QueryError) as mapped:
        with map_neo4j_errors(settings()):
            raise error
    assert len(str(mapped.value)) < 400


def test_a_cli_param_nested_5000_deep_is_one_line() -> None:
    from kg.navigate.cli import parse_param

    with pytest.raises(InputError, match="nests too deep"):
        parse_param("x=" + "[" * 5000 + "]" * 5000)
    assert parse_param("x=[[1]]") == ("x", [[1]])
