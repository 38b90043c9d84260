"""Open the graph the settings point at, starting kg's local server first when it is the graph and is not running."""

from __future__ import annotations

from collections.abc import Callable

from kg.server import local
from kg.settings import Settings
from kg.store import Store


def open_graph(settings: Settings, on_start: Callable[[str], None] | None = None) -> Store:
    if not settings.uri_configured and not local.is_running(settings):
        if on_start:
            on_start(f"starting the local Neo4j in {settings.data_dir}")
        local.start(settings, on_build=on_start)
    return Store.connect(settings)
