"""The one door to Neo4j: named queries in, plain dicts out, neo4j's errors translated into kg's.

`read(name, **params)` runs a named query in a read transaction (the server refuses writes there);
`read_untrusted(text, params, limit)` runs Cypher someone typed only when it reads the graph (kg.readonly), with a
server-side timeout, streaming and stopping at the limit; `write(name, rows)` sends rows in fixed-size
`UNWIND $rows` batches; `transaction(work)` runs several named writes as one transaction (one file's incremental
update is exactly one). Writes are retried on Neo4j's transient errors (a deadlock between concurrent ingests), and
every error the driver raises leaves as one kg error line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from kg import queries, readonly
from kg.disk import explain_database_error, full_disk_note
from kg.errors import AuthFailed, GraphFailed, GraphUnavailable, InputError, QueryError, memory_refused
from kg.settings import Settings

BATCH_SIZE = 10_000  # rows per UNWIND transaction in a bulk write: each commit costs ~30 ms, so fewer, larger ones
UNTRUSTED_TIMEOUT = 20.0  # seconds the server gives a typed query before it ends it
RETRY_SECONDS = 30.0  # how long a write keeps retrying Neo4j's transient errors (deadlocks, lock timeouts)
T = TypeVar("T")


def batched(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """itertools.batched, which arrives only in Python 3.12."""
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


@contextmanager
def map_neo4j_errors(settings: Settings) -> Iterator[None]:
    """Turn every exception the driver raises into one of kg's one-line errors that say what to do."""
    try:
        yield
    except neo4j_errors.AuthError as e:
        raise AuthFailed(
            f"Neo4j at {settings.uri} refused user {settings.user!r}: check NEO4J_USER and NEO4J_PASSWORD") from e
    except neo4j_errors.IncompleteCommit as e:
        raise GraphUnavailable(f"lost Neo4j at {settings.uri} while committing, so the last write may or may not "
                               "have landed: run the command again (kg's writes are idempotent)"
                               + _full_disk(settings)) from e
    except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired) as e:
        hint = "check NEO4J_URI" if settings.uri_configured else (
            full_disk_note(settings) or "start it with `kg server start`")
        raise GraphUnavailable(f"cannot reach Neo4j at {settings.uri}: {hint}") from e
    except neo4j_errors.DatabaseUnavailable as e:
        raise GraphFailed(f"the database {settings.database!r} on Neo4j at {settings.uri} is not online: "
                          f"{_first_line(e)}; see `kg server logs`, then restart the server") from e
    except neo4j_errors.TransientError as e:
        if "OutOfMemoryError" in (e.code or ""):  # a transaction over its limit, or the heap itself (attack6 D3)
            raise memory_refused(_first_line(e)) from e
        # no claim of retries: only managed transactions are retried, a typed query or a single statement is not
        raise GraphFailed(f"Neo4j could not finish the work ({_first_line(e)}): run the command again") from e
    except neo4j_errors.ClientError as e:
        if "TransactionTimedOut" in (e.code or ""):
            raise QueryError("the query ran out of time and the server stopped it: narrow it (a LIMIT, a shorter "
                             "path pattern) and run it again") from e
        if "read-only" in _first_line(e) and (note := full_disk_note(settings)):  # Neo4j's answer to a full disk
            raise GraphFailed(f"Neo4j turned the graph read-only: {note}") from e
        raise QueryError(f"Neo4j refused the query: {_first_line(e)}") from e
    except neo4j_errors.Neo4jError as e:  # DatabaseError: disk full, transaction log, out of memory…
        raise GraphFailed(explain_database_error(settings, _first_line(e))) from e
    except neo4j_errors.DriverError as e:  # a connection lost mid-result, a commit whose outcome is unknown…
        raise GraphUnavailable(f"lost Neo4j at {settings.uri} ({type(e).__name__}: {_first_line(e)}): check "
                               "`kg server status`, then run the command again" + _full_disk(settings)) from e
    except UnicodeEncodeError as e:  # a lone surrogate (from a non-UTF-8 argv, say) cannot be sent
        raise InputError(f"a value sent to Neo4j is not valid text ({e.reason} at character {e.start}): pass "
                         "UTF-8 text") from e
    except OverflowError as e:  # the driver's own check of a parameter it cannot encode
        raise InputError(f"a value sent to Neo4j is out of range ({str(e)[:80]}): integers must fit in 64 bits") from e


def _full_disk(settings: Settings) -> str:
    """A halted server (a database panic on a full disk) reaches the driver as a lost connection: say why."""
    note = full_disk_note(settings)
    return f"; {note}" if note else ""


def _first_line(e: Exception) -> str:
    text = (getattr(e, "message", None) or str(e) or type(e).__name__).strip()
    return (text.splitlines() or [type(e).__name__])[0][:300]


def _retryable(e: BaseException) -> bool:
    return isinstance(e, neo4j_errors.Neo4jError) and e.is_retryable()


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
        # Set by a caller that needs its write transactions found later (kg.ingest.lock): SHOW TRANSACTIONS shows it.
        self.write_metadata: dict[str, Any] | None = None

    @classmethod
    def connect(cls, settings: Settings) -> Store:
        with map_neo4j_errors(settings):
            driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password),
                                                notifications_min_severity="OFF",
                                                max_transaction_retry_time=RETRY_SECONDS)
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
        """Rows of Cypher kg itself wrote (tests, its own files). Text from anyone else goes to read_untrusted."""
        with map_neo4j_errors(self.settings), self._session(neo4j.READ_ACCESS) as session:
            return session.execute_read(lambda tx: [r.data() for r in tx.run(text, params)])

    def read_untrusted(self, text: str, params: dict[str, Any], limit: int,
                       timeout: float = UNTRUSTED_TIMEOUT) -> tuple[list[dict[str, Any]], bool]:
        """At most `limit` rows of Cypher someone typed, and whether it had more.

        Refused (InputError) unless it only reads the graph: kg.readonly checks the text, then the plan of
        `EXPLAIN <text>` in the same read transaction. The server ends it after `timeout` seconds, and rows are
        pulled `limit + 1` at a time and the transaction closed once that many are in: the server stops there, so
        `UNWIND range(1, 3000000)` with a limit of 5 costs what 6 rows cost.
        """
        if limit < 1:
            raise InputError(f"limit must be at least 1, not {limit}")
        readonly.check_text(text)
        rows: list[dict[str, Any]] = []
        with map_neo4j_errors(self.settings), self._session(neo4j.READ_ACCESS, fetch_size=limit + 1) as session:
            tx = session.begin_transaction(timeout=timeout)
            try:
                summary = tx.run(f"EXPLAIN {text}", params).consume()
                readonly.check_plan(summary.query_type, summary.plan)
                for record in tx.run(text, params):
                    if len(rows) == limit:
                        return rows, True
                    rows.append(record.data())
                return rows, False
            finally:
                tx.close()  # rolls back: nothing of it is kept, and the rest of the result is never made

    def write(self, name: str, rows: Iterable[dict[str, Any]] | None = None, /, **params: Any) -> None:
        """Run a named write once, or with `rows` in `UNWIND $rows` batches of BATCH_SIZE, each its own transaction.
        Transient errors (deadlocks) are retried: by the driver for batches, here for the single statement."""
        text = queries.load(name)
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            if rows is None:  # an auto-commit statement, so `CALL {…} IN TRANSACTIONS` works too
                for attempt in Retrying(retry=retry_if_exception(_retryable), reraise=True,
                                        stop=stop_after_attempt(8), wait=wait_random_exponential(0.1, 4)):
                    with attempt:
                        session.run(neo4j.Query(text, metadata=self.write_metadata), params).consume()
                return
            for batch in batched(rows, BATCH_SIZE):
                session.execute_write(self._labelled(
                    lambda tx, b=list(batch): tx.run(text, {**params, "rows": b}).consume()))

    def write_read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Rows of a named query run in one managed write transaction (retried on transient errors such as a
        deadlock), for writes whose answer matters: a compare-and-set says whether it happened."""
        text = queries.load(name)
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            return session.execute_write(lambda tx: [r.data() for r in tx.run(text, params)])

    def transaction(self, work: Callable[[Transaction], T]) -> T:
        """Run `work` in one write transaction: everything it writes lands together or not at all. The driver runs
        it again on a transient error (a deadlock with a concurrent ingest), so `work` must only write."""
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            return session.execute_write(self._labelled(lambda tx: work(Transaction(tx))))

    def _labelled(self, work: Callable[[neo4j.ManagedTransaction], T]) -> Callable[[neo4j.ManagedTransaction], T]:
        return neo4j.unit_of_work(metadata=self.write_metadata)(work) if self.write_metadata else work

    def apply_schema(self) -> int:
        """Create every constraint and index in queries/schema.cypher that is missing; returns the statement count.
        Every ingest starts here, so the names present are read first and only the missing ones are sent."""
        statements = queries.statements("schema")
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            present = {record["name"] for record in session.run(queries.load("schema_objects"))}
            for statement in queries.missing_schema(statements, present):
                session.run(statement).consume()
        return len(statements)

    def write_statements(self, name: str, /, **params: Any) -> None:
        """Run each statement of a multi-statement file (index DDL, say) in turn, each on its own."""
        with map_neo4j_errors(self.settings), self._session(neo4j.WRITE_ACCESS) as session:
            for statement in queries.statements(name):
                session.run(statement, params).consume()

    def _session(self, access: str, **config: Any) -> neo4j.Session:
        return self._driver.session(database=self.settings.database, default_access_mode=access, **config)
