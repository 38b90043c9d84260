"""Errors kg expects and explains in one line. Anything else is a bug and keeps its traceback.

    KgError                      every expected failure; `str(e)` is the one line the CLI prints
    ├── ConfigError              a setting or project file is wrong
    ├── ToolMissing              java or mvn is not installed
    ├── ServerError              the local Neo4j could not be built, started or stopped
    │   ├── PortInUse            a port the local server needs is taken by another process
    │   └── DiskFull             too little free space on the disk holding the local server's data
    ├── GraphUnavailable         nothing answers at the configured URI (or the connection was lost)
    ├── GraphFailed              Neo4j answered but could not do the work (database offline, disk full, deadlock)
    ├── AuthFailed               the graph answered but refused the user/password
    ├── QueryError               the graph refused a query (syntax, constraint, a write in a read-only call)
    └── InputError               a path, symbol or argument given by the user does not work

`queries.QueryNotFound` (a LookupError) is the one expected error raised outside this tree: `queries/` sits below
every other package and imports none of them. The CLI treats it like a KgError.
"""

from __future__ import annotations


class KgError(Exception):
    """An expected failure; the message says what happened and what to do."""


class ConfigError(KgError):
    """A setting or the project file is wrong."""


class ToolMissing(KgError):
    """A program kg needs (java, mvn) is not installed."""


class ServerError(KgError):
    """The local Neo4j could not be built, started or stopped."""


class PortInUse(ServerError):
    """A port the local server needs is already taken."""


class DiskFull(ServerError):
    """The disk holding the local server's data folder has too little free space for the next write."""


class GraphUnavailable(KgError):
    """Nothing answers at the configured Neo4j URI."""


class GraphFailed(KgError):
    """Neo4j answered but could not do the work: its database is offline, its disk is full, a deadlock outlasted
    the retries."""


class AuthFailed(KgError):
    """Neo4j refused the configured user or password."""


class QueryError(KgError):
    """Neo4j refused a query."""


class InputError(KgError):
    """An argument given by the user does not work (missing path, unknown symbol...)."""


def shorten(value: object, limit: int = 80) -> str:
    """`repr(value)` for an error message, cut to about `limit` characters: an error never echoes a whole input."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{text[:limit]}…{size}"


def memory_refused(reason: str) -> QueryError:
    """Neo4j's refusal of a transaction that outgrew its memory limit (MemoryPoolOutOfMemoryError): retrying the
    same work hits the same limit, so the message says what to change instead."""
    return QueryError(f"the query needed more memory than Neo4j allows a transaction ({reason}): make it smaller "
                      "(a LIMIT, fewer rows at once), or give the server more heap (KG_NEO4J_HEAP, then "
                      "`kg server restart`)")
