"""Installed distributions found by their `.dist-info` folders on sys.path, without importing importlib.metadata:
that import costs a one-shot command ~20 ms, and kg asks only for a version or its own entry points.

A distribution installed some other way (an egg, a zip) is not found here; the callers then fall back to
importlib.metadata.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache


def _normalised(name: str) -> str:
    """The name as pip writes it in a `.dist-info` folder's name: runs of `-`, `_`, `.` are one `_`, lower case."""
    return re.sub(r"[-_.]+", "_", name).lower()


@cache
def _folders() -> dict[str, str]:
    """Normalised distribution name → its `.dist-info` folder, the first found along sys.path (as imports do)."""
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and "-" in name:
                found.setdefault(_normalised(name.split("-", 1)[0]), os.path.join(folder or ".", name))
    return found


def dist_info(name: str) -> str | None:
    """The `.dist-info` folder of an installed distribution, or None."""
    return _folders().get(_normalised(name))


def version(name: str) -> str | None:
    """An installed distribution's version, read from its folder's name (`tree_sitter-0.25.0.dist-info`)."""
    folder = dist_info(name)
    return os.path.basename(folder).removesuffix(".dist-info").split("-", 1)[1] if folder else None
