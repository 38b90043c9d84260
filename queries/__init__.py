"""Named Cypher queries: one question per `queries/<name>.cypher` file, values always as `$parameters`.

A file opens with `//` comments saying what it answers and `:param` lines a person can paste into Neo4j Browser
together with the query. The loader drops the `:param` lines (they are Browser commands, not Cypher) and keeps the
rest unchanged, so the text the CLI runs is the text Browser runs.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")
# The files sit beside this module (kg installs as folders, never zipped); importlib.resources would cost every
# command ~10 ms of imports (inspect, zipfile, pickle) to find the same folder.
_ROOT = Path(__file__).resolve().parent


class QueryNotFound(LookupError):
    """No `queries/<name>.cypher` exists."""

    def __str__(self) -> str:
        return f"no query named {self.args[0]!r}: run `kg query --list` to see the named queries"


@cache
def load(name: str) -> str:
    """The Cypher text of `queries/<name>.cypher` without its `:param` lines."""
    if not _NAME.match(name):
        raise QueryNotFound(name)
    ref = _ROOT / f"{name}.cypher"
    if not ref.is_file():
        raise QueryNotFound(name)
    lines = ref.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith(":")).strip()


def statements(name: str) -> list[str]:
    """The statements of a multi-statement file (such as `schema`), split on `;` at the end of a line."""
    parts = re.split(r";\s*$", load(name), flags=re.MULTILINE)
    return [s for s in (_strip_comments(p) for p in parts) if s]


_SCHEMA_NAME = re.compile(r"CREATE\s+(?:CONSTRAINT|(?:\w+\s+)?INDEX)\s+(\w+)\s+IF\s+NOT\s+EXISTS", re.IGNORECASE)


def missing_schema(statements: list[str], present: set[str]) -> list[str]:
    """The statements of `statements` (schema.cypher's) still to run when the graph has the indexes and constraints
    named `present`: those creating a missing one, then the others (`db.awaitIndexes`) if any is created."""
    missing = [s for s in statements if (_SCHEMA_NAME.match(s) or [None, None])[1] not in present]
    return missing if any(_SCHEMA_NAME.match(s) for s in missing) else []


def names() -> list[str]:
    """Every named query, e.g. `callers`, `schema`."""
    return sorted(p.relative_to(_ROOT).with_suffix("").as_posix() for p in _ROOT.rglob("*.cypher"))


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")).strip()
