"""The one door to Neo4j: named queries in, plain dicts out, neo4j's errors translated into kg's.

`read(name, **params)` runs a named query in a read transaction (the server refuses writes there);
`write(name, rows)` sends rows in fixed-size `UNWIND $rows` batches; `transaction()` groups several named writes
into one transaction (one file's incremental update is exactly one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any

import neo4j
from neo4j import exceptions as neo4j_errors

from kg import queries
from kg.errors import AuthFailed, GraphUnavailable, QueryError
from kg.settings import Settings

BATCH_SIZE = 1000


def batched(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """itertools.batched, which arrives only in Python 3.12."""
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


@contextmanager
def map_neo4j_errors(settings: Settings) -> Iterator[None]:
    """Turn the driver's exceptions into kg's one-line errors that say what to do."""
    try:
        yield
    except neo4j_errors.AuthError as e:
        raise AuthFailed(
            f"Neo4j at {settings.uri} refused user {settings.user!r}: check NEO4J_USER and NEO4J_PASSWORD") from e
    except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired) as e:
        hint = "check NEO4J_URI" if settings.uri_configured else "start it with `kg server start`"
        raise GraphUnavailable(f"cannot reach Neo4j at {settings.uri}: {hint}") from e
    except neo4j_errors.ClientError as e:
        first_line = (e.message or str(e)).strip().splitlines()[0]
        raise QueryError(f"Neo4j refused the query: {first_line}") from e


class Transaction:
    """Named writes inside one open transaction."""

    def __init__(self, tx: neo4j.Transaction) -> None:
        self._tx = tx

    def write(self, name: str, rows: Sequence[dict[str, Any]] | None = None, /, **params: Any) -> None:
        text = queries.load(name)
        if rows is None:
            self._tx.run(text, params).consume()
            return
        for batch in batched(rows, BATCH_SIZE):
            self._tx.run(text, {**params, "rows": list(batch)}).consume()


class Store:
    def __init__(self, driver: neo4j.Driver, settings: Settings) -> None:
        self._driver = driver
        self.settings = settings

    @classmethod
    def connect(cls, settings: Settings) -> Store:
        with map_neo4j_errors(settings):
            driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password),
                                                notifications_min_severity="OFF", max_transaction_retry_time=10.0)
            try:
                driver.verify_connectivity()
            except BaseException:
                driver.close()
                raise
        return cls(driver, settings)

    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Rows of a named query run in a read transaction: a query that writes is refused by the server."""
        return self.read_text(queries.load(name), **params)

    def read_text(self, text: str, /, **params: Any) -> list[dict[str, Any]]:
        with map_neo4j_errors(self.settings), self._session(neo4j.READ_ACCESS) as session:
            return session.execute_read(lambda tx: [r.data() for r in tx.run(text, params)])

    def write(self, name: str, rows: Iterable[dict[str, Any]] | None = None, /, **params: Any) -> None:
        """Run a named write once, or with `rows` in `UNWIND $rows` batches of BATCH_SIZE, each its own transaction."""
        text = queries.load(name)
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            if rows is None:  # an auto-commit statement, so `CALL {…} IN TRANSACTIONS` works too
                session.run(text, params).consume()
                return
            for batch in batched(rows, BATCH_SIZE):
                session.execute_write(lambda tx, b=list(batch): tx.run(text, {**params, "rows": b}).consume())

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One explicit transaction: everything written inside lands together or not at all."""
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            with session.begin_transaction() as tx:
                yield Transaction(tx)
                tx.commit()

    def apply_schema(self) -> int:
        """Create every constraint and index in queries/schema.cypher that is missing; returns the statement count."""
        statements = queries.statements("schema")
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            for statement in statements:
                session.run(statement).consume()
        return len(statements)

    def write_statements(self, name: str, /, **params: Any) -> None:
        """Run each statement of a multi-statement file (index DDL, say) in turn, each on its own."""
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            for statement in queries.statements(name):
                session.run(statement, params).consume()

    def _session(self, access: str) -> neo4j.Session:
        return self._driver.session(database=self.settings.database, default_access_mode=access)
