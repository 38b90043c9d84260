"""Named reads over Neo4j's HTTP Query API, with nothing but the standard library: how a one-shot CLI answer reads.

Importing the neo4j driver costs a `kg callers` run more CPU (~120 ms: its calendar tables, asyncio, ssl) than the
rest of the answer together, and decoding a few thousand rows in its pure-Python PackStream costs as much again.
One HTTP request to the Query API (`POST /db/<database>/query/v2`) answers the same named query.

The same guarantees as `Store.read`:
- read-only: the request asks for a READ transaction (`accessMode`), so the server refuses any write
  (Neo.ClientError.Statement.AccessMode), exactly as in the driver's read transaction;
- the same answers: values come back typed (`application/vnd.neo4j.query`) and become what the driver's
  `Record.data()` gives; a value the driver would give as one of its own types (temporal, spatial, bytes, a
  relationship or path) is not guessed at: the query is run again through the driver (`fallback`);
- the same errors: every failure leaves as the kg error `kg.store.map_neo4j_errors` gives for that Neo4j code.

Only kg's local server is read this way (its HTTP port is in the settings); a configured NEO4J_URI uses the driver.
Each request is one HTTP/1.0 exchange on a fresh loopback connection: the server closes it after the answer, so the
answer is everything up to the end of the stream (http.client would add ~15 ms of imports: ssl, email).
"""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Callable
from itertools import islice
from typing import Any, TypeVar

from kg import queries
from kg.errors import AuthFailed, GraphFailed, GraphUnavailable, InputError, QueryError, memory_refused
from kg.settings import Settings

RETRY_SECONDS = 30.0  # as long as the driver retries a read on Neo4j's transient errors
READ_TIMEOUT = 120.0  # seconds without a byte from the server before a read gives up
TYPED_JSON = "application/vnd.neo4j.query"
MAX_INT = 2**63 - 1
TX_BATCH = 10_000  # rows per statement inside a transaction, as kg.store.BATCH_SIZE
T = TypeVar("T")


class Unrepresentable(Exception):
    """A value the driver would return as one of its own types: only the driver gives the same answer."""


class Transient(Exception):
    """A transient error (a deadlock) inside an explicit transaction: the server has rolled it back."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class QueryApiReader:
    """`read` and `read_text` like `kg.store.Store`, over HTTP to the local server.

    `on_refused` is called once when nothing listens on the port (kg starts its local server there), then the
    request is sent again — only before the server first answered (`reached`): a server that went away while the
    command ran was stopped or died, and starting it again would race that stop (newuser4 #5). `fallback` gives a
    driver-backed Store for values only the driver can give."""

    def __init__(self, settings: Settings, on_refused: Callable[[], None] | None = None,
                 fallback: Callable[[], Any] | None = None) -> None:
        self.settings = settings
        self._on_refused = on_refused
        self._fallback = fallback
        self._fallback_store: Any = None
        self.reached = False  # the server has answered this reader once
        token = base64.b64encode(f"{settings.user}:{settings.password}".encode()).decode()
        self._path = f"/db/{settings.database}/query/v2"
        self._headers = (f"Host: 127.0.0.1:{settings.http_port}\r\nAuthorization: Basic {token}\r\n"
                         f"Content-Type: application/json\r\nAccept: {TYPED_JSON}\r\n")

    def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Rows of a named query run in a read transaction: a query that writes is refused by the server."""
        return self.read_text(queries.load(name), **params)

    def read_text(self, text: str, /, **params: Any) -> list[dict[str, Any]]:
        """Rows of Cypher kg itself wrote (its query files, tests)."""
        body = _encode({"statement": text, "parameters": params, "accessMode": "Read"})
        answer = self._post(body)
        data = answer["data"]
        fields = data["fields"]
        try:
            return [dict(zip(fields, map(plain, values), strict=True)) for values in data["values"]]
        except Unrepresentable:
            return self._driver().read_text(text, **params)

    def close(self) -> None:
        if self._fallback_store is not None:
            self._fallback_store.close()
            self._fallback_store = None

    def __enter__(self) -> QueryApiReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _driver(self) -> Any:
        if self._fallback is None:
            raise QueryError("the answer holds a value only the neo4j driver can give: run it against a NEO4J_URI")
        if self._fallback_store is None:
            self._fallback_store = self._fallback()
        return self._fallback_store

    def _post(self, body: bytes, path: str = "", retry: bool = True) -> dict[str, Any]:
        """The decoded answer of one request to the Query API's `path` (below /db/<database>/query/v2), retried
        like the driver retries a read on transient errors (unless `retry` is False: a statement inside an explicit
        transaction, which the error has ended; the whole transaction is retried instead)."""
        deadline = time.monotonic() + RETRY_SECONDS
        refused_once = False
        delay = 0.1
        while True:
            try:
                status, answer = self._send(body, path)
                self.reached = True
            except ConnectionRefusedError as e:
                if self._on_refused is None or refused_once or self.reached:
                    raise self._unreachable() from e
                refused_once = True
                self._on_refused()
                continue
            except TimeoutError as e:
                raise GraphUnavailable(f"no answer from {self._url} in {READ_TIMEOUT:.0f} s: check that `kg server "
                                       "status` names this port, then run the command again") from e
            except (OSError, ValueError, IndexError) as e:  # reset, or not an HTTP answer
                raise GraphUnavailable(f"lost Neo4j at {self._url} (the connection broke or the answer was not "
                                       "Neo4j's): check `kg server status`, then run the command again"
                                       + self._full_disk()) from e
            errors = answer.get("errors") or []
            if status == 401 or any(e.get("code") == "Neo.ClientError.Security.Unauthorized" for e in errors):
                raise AuthFailed(f"Neo4j at {self.settings.uri} refused user {self.settings.user!r}: check "
                                 "NEO4J_USER and NEO4J_PASSWORD")
            if not errors and ("data" in answer or path.endswith("/commit") and 200 <= status < 300):
                return answer
            code, message = (errors[0].get("code", ""), errors[0].get("message", "")) if errors else ("", "")
            # a memory refusal is "transient" to Neo4j, but the same query meets the same limit again
            transient = code.startswith("Neo.TransientError.") and not any(
                word in code for word in ("DatabaseUnavailable", "MemoryPoolOutOfMemoryError"))
            if transient and not retry:
                raise Transient(self._error(status, code, message))
            if transient and time.monotonic() + delay < deadline:
                time.sleep(delay)
                delay = min(delay * 2, 4.0)
                continue
            raise self._error(status, code, message)

    def _send(self, body: bytes, path: str = "", method: str = "POST") -> tuple[int, dict[str, Any]]:
        head = f"{method} {self._path}{path} HTTP/1.0\r\n{self._headers}Content-Length: {len(body)}\r\n\r\n"
        request = head.encode() + body
        # A timeout: something other than Neo4j listening on the port must not hang the command (a query kg asks
        # for answers in seconds; the slowest, tests-for on django's hubs, in under a minute).
        with socket.create_connection(("127.0.0.1", self.settings.http_port), timeout=READ_TIMEOUT) as connection:
            connection.sendall(request)
            chunks = []
            while chunk := connection.recv(1 << 16):
                chunks.append(chunk)
        head, _, raw = b"".join(chunks).partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])  # "HTTP/1.1 202 Accepted"; ValueError/IndexError if not HTTP
        try:
            return status, json.loads(raw) if raw else {}
        except ValueError:
            return status, {"errors": [{"code": "", "message": raw[:300].decode(errors="replace")}]}

    @property
    def _url(self) -> str:
        return f"http://127.0.0.1:{self.settings.http_port}"

    def _unreachable(self) -> GraphUnavailable:
        from kg.disk import full_disk_note

        if self.reached:
            return GraphUnavailable(f"Neo4j at {self._url} stopped answering while the command ran: "
                                    f"{full_disk_note(self.settings) or 'start it with `kg server start`'}, then "
                                    "run the command again")
        return GraphUnavailable(f"cannot reach Neo4j at {self._url}: "
                                f"{full_disk_note(self.settings) or 'start it with `kg server start`'}")

    def _error(self, status: int, code: str, message: str) -> Exception:
        """The kg error kg.store.map_neo4j_errors gives for the same Neo4j status code."""
        first = _first_line(message or f"HTTP {status}")
        if "DatabaseUnavailable" in code or "DatabaseNotFound" in code:
            return GraphFailed(f"the database {self.settings.database!r} on Neo4j at {self.settings.uri} is not "
                               f"online: {first}; see `kg server logs`, then restart the server")
        if "OutOfMemoryError" in code:  # a transaction over its limit, or the heap itself (attack6 D3)
            return memory_refused(first)
        if code.startswith("Neo.TransientError."):
            return GraphFailed(f"Neo4j could not finish the work ({first}): run the command again")
        if code.startswith("Neo.ClientError."):
            if "read-only" in first:  # Neo4j's answer to a write on a full disk (as kg.store says it)
                from kg.disk import full_disk_note

                if note := full_disk_note(self.settings):
                    return GraphFailed(f"Neo4j turned the graph read-only: {note}")
            if "TransactionTimedOut" in code:
                return QueryError("the query ran out of time and the server stopped it: narrow it (a LIMIT, a "
                                  "shorter path pattern) and run it again")
            return QueryError(f"Neo4j refused the query: {first}")
        from kg.disk import explain_database_error  # names a full disk, as kg.store does for the driver

        return GraphFailed(explain_database_error(self.settings, first))

    def _full_disk(self) -> str:
        """A halted server (a database panic on a full disk) looks like a lost connection: say why (kg.store)."""
        from kg.disk import full_disk_note

        note = full_disk_note(self.settings)
        return f"; {note}" if note else ""


def plain(value: dict[str, Any]) -> Any:
    """A typed Query API value as the driver's `Record.data()` gives it (see the module docstring)."""
    kind, inner = value["$type"], value["_value"]
    if kind == "String" or kind == "Boolean" or kind == "Null":
        return inner
    if kind == "Integer":
        return int(inner)
    if kind == "Float":
        return float(inner)  # "NaN", "Infinity" and "-Infinity" included
    if kind == "List":
        return [plain(v) for v in inner]
    if kind == "Map":
        return {k: plain(v) for k, v in inner.items()}
    if kind == "Node":
        return {k: plain(v) for k, v in inner["_properties"].items()}
    raise Unrepresentable(kind)


def _encode(payload: dict[str, Any]) -> bytes:
    """JSON for the request, refusing what the driver refuses (with the same kg errors)."""
    _check_ints(payload["parameters"])
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(f"a value sent to Neo4j is not valid text ({e.reason} at character {e.start}): pass "
                         "UTF-8 text") from e
    except (TypeError, ValueError) as e:
        raise InputError(f"a value sent to Neo4j cannot be sent ({str(e)[:80]}): pass text, numbers, lists or "
                         "maps") from e


def _check_ints(value: Any) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        raise InputError(f"a value sent to Neo4j is out of range (Integer {str(value)[:40]} out of range): "
                         "integers must fit in 64 bits")
    if isinstance(value, dict):
        for v in value.values():
            _check_ints(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _check_ints(v)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or ["?"])[0][:300]


class QueryApiStore(QueryApiReader):
    """Reads and small writes over the Query API: what a one-file `kg ingest` sends (its reads, the repository
    node, one explicit transaction), so it never imports the driver. What only the driver does here (bulk `UNWIND`
    batches of a large change, schema statements still to create, typed Cypher) goes to the driver-backed Store
    given by `fallback`, made on first need.

    A transaction is the same unit as `Store.transaction`: the named writes of `work` land together or not at
    all (the server rolls back an explicit transaction on any error, and on a lost connection it expires); a
    transient error (a deadlock with a concurrent ingest) runs `work` again, as the driver would, for up to
    RETRY_SECONDS."""

    write_metadata: dict[str, Any] | None = None  # as Store.write_metadata: labels explicit transactions

    def write(self, name: str, rows: Any = None, /, **params: Any) -> None:
        if rows is not None:
            driver = self._driver()
            driver.write_metadata = self.write_metadata
            return driver.write(name, rows, **params)
        self._post(_encode({"statement": queries.load(name), "parameters": params}))
        return None

    def transaction(self, work: Callable[[Any], T]) -> T:
        deadline = time.monotonic() + RETRY_SECONDS
        delay = 0.1
        while True:
            tx = _HttpTransaction(self)
            try:
                result = work(tx)
                tx.commit()
                return result
            except Transient as e:
                tx.abandon()
                if time.monotonic() + delay >= deadline:
                    raise e.error from e
                time.sleep(delay)
                delay = min(delay * 2, 4.0)
            except BaseException:
                tx.abandon()
                raise

    def apply_schema(self) -> int:
        """Store.apply_schema, in one read when every index exists already (every run but the first)."""
        statements = queries.statements("schema")
        if not queries.missing_schema(statements, {row["name"] for row in self.read("schema_objects")}):
            return len(statements)
        return self._driver().apply_schema()

    def write_read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._driver().write_read(name, **params)

    def write_statements(self, name: str, /, **params: Any) -> None:
        self._driver().write_statements(name, **params)

    def read_untrusted(self, *args: Any, **kwargs: Any) -> Any:
        return self._driver().read_untrusted(*args, **kwargs)


class _HttpTransaction:
    """Named writes inside one explicit Query API transaction (what `kg.store.Transaction` is for the driver)."""

    def __init__(self, api: QueryApiStore) -> None:
        self._api = api
        self._id: str | None = None

    def write(self, name: str, rows: Any = None, /, **params: Any) -> None:
        if self._id is None and self._api.write_metadata:  # what the driver sets as it begins a transaction
            meta = self._api.write_metadata
            self._run(queries.load("server/tx_label"), {"meta": meta})
            # again with the id the Query API gave the transaction: whoever finds it orphaned can roll it back
            # (`rollback`), which a TERMINATE does not quite do (the Query API keeps it until its idle timeout)
            self._run(queries.load("server/tx_label"), {"meta": {**meta, "http_tx": self._id}})
        text = queries.load(name)
        if rows is None:
            self._run(text, params)
            return
        it = iter(rows)
        while batch := list(islice(it, TX_BATCH)):
            self._run(text, {**params, "rows": batch})

    def _run(self, text: str, params: dict[str, Any]) -> None:
        body = _encode({"statement": text, "parameters": params})
        answer = self._api._post(body, f"/tx/{self._id}" if self._id else "/tx", retry=False)
        self._id = answer["transaction"]["id"]

    def commit(self) -> None:
        if self._id is not None:
            self._api._post(b"{}", f"/tx/{self._id}/commit", retry=False)
            self._id = None

    def abandon(self) -> None:
        """Roll back what is still open (after an error the server has done so already: that answer is ignored)."""
        if self._id is not None:
            try:
                self._api._send(b"", f"/tx/{self._id}", method="DELETE")
            except (OSError, ValueError, IndexError):
                pass
            self._id = None


def rollback(settings: Settings, transaction_ids: list[str]) -> list[str]:
    """Roll back explicit Query API transactions by their ids (`http_tx` in their metadata), whoever opened them:
    what a killed `kg ingest` left open (kg.ingest.lock). Returns the ids the server did not take (gone already, or
    the request failed or was refused): the caller can end those another way. A DELETE the server takes may still
    end nothing (the transaction was running a statement): the caller checks what is left."""
    reader = QueryApiReader(settings)
    failed = []
    for tx_id in transaction_ids:
        try:
            status, answer = reader._send(b"", f"/tx/{tx_id}", method="DELETE")
        except (OSError, ValueError, IndexError):
            failed.append(tx_id)
            continue
        if status >= 400 or answer.get("errors"):
            failed.append(tx_id)
    return failed
