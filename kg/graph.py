"""Open the graph the settings point at, starting kg's local server first when it is the graph and is not running.

`open_graph` gives the driver-backed Store (writes, transactions, typed Cypher, long-lived processes such as the MCP
server and the agent). `open_reader` gives what a one-shot command that only reads needs: for kg's local server the
HTTP Query API reader (kg.query_api), which answers without importing the driver; else the same Store.
`open_writer` is the same for a one-shot command that writes a little (a one-file `kg ingest`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from kg.settings import Settings

if TYPE_CHECKING:
    from kg.query_api import QueryApiReader, QueryApiStore
    from kg.store import Store

Q = TypeVar("Q", "QueryApiReader", "QueryApiStore")


def open_graph(settings: Settings, on_start: Callable[[str], None] | None = None) -> Store:
    from kg.store import Store

    if not settings.uri_configured:
        _ensure_local(settings, on_start)
    return Store.connect(settings)


def open_reader(settings: Settings, on_start: Callable[[str], None] | None = None) -> QueryApiReader | Store:
    """Named reads (`read`, `read_text`) of the graph, the cheapest way there is to it."""
    if settings.uri_configured:
        return open_graph(settings, on_start)
    from kg.query_api import QueryApiReader

    # No status check up front: the first request finds out, and a refused connection starts the server.
    return _over_http(QueryApiReader, settings, on_start)


def open_writer(settings: Settings, on_start: Callable[[str], None] | None = None) -> QueryApiStore | Store:
    """What a one-shot command that writes a little needs (a one-file `kg ingest`): for kg's local server the Query
    API store (kg.query_api.QueryApiStore), which imports the driver only for bulk writes; else the same Store."""
    if settings.uri_configured:
        return open_graph(settings, on_start)
    from kg.query_api import QueryApiStore

    return _over_http(QueryApiStore, settings, on_start)


def _over_http(kind: type[Q], settings: Settings, on_start: Callable[[str], None] | None) -> Q:
    """A Query API reader or store of the local server that starts it only if the server is down when the command
    begins: once it has answered, a server that goes away was stopped or died (a `kg server stop` during an
    ingest), and a start then raced the stop, failed or came up only to be stopped again (newuser4 #5)."""
    def driver() -> Store:
        if api.reached:
            from kg.store import Store

            return Store.connect(settings)
        return open_graph(settings, on_start)

    api = kind(settings, on_refused=lambda: _ensure_local(settings, on_start), fallback=driver)
    return api


def _ensure_local(settings: Settings, on_start: Callable[[str], None] | None) -> None:
    from kg.server import local

    if not local.is_running(settings):
        if on_start:
            on_start(f"starting the local Neo4j in {settings.data_dir} ({local.expected_start(settings)}); the "
                     "command goes on once it answers")
        local.start(settings, on_build=on_start)
