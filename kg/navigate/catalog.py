"""What the named queries are and what they ask for, read from the `.cypher` files themselves.

A query file documents itself for Neo4j Browser: `//` comments saying what it answers, then `:param name => value;`
lines a person can paste. `kg query --list`, `kg query NAME` (which parameters are missing) and the tests that run
every file with its own example values all read that header, so the documentation cannot drift from the query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from kg import queries

_PARAM = re.compile(r"^\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.*?)\s*;?\s*$")
_USED = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class QueryInfo:
    name: str
    summary: str  # the opening comment, joined into one paragraph
    examples: dict[str, str]  # parameter → the Cypher literal its `:param` line gives (Browser's example value)
    used: tuple[str, ...]  # every `$parameter` the query text refers to, in order of first use

    @property
    def first_line(self) -> str:
        """The opening sentence (a question, in kg's query files)."""
        return re.split(r"(?<=[.?])\s", self.summary, maxsplit=1)[0]


def source(name: str) -> str:
    """The file exactly as Browser would get it, `:param` lines included."""
    queries.load(name)  # raises QueryNotFound for a bad or unknown name
    return resources.files(queries).joinpath(f"{name}.cypher").read_text(encoding="utf-8")


def describe(name: str) -> QueryInfo:
    text = source(name)
    comments: list[str] = []
    examples: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//") and not examples:
            comments.append(stripped.lstrip("/").strip())
        elif match := _PARAM.match(line):
            examples[match.group(1)] = match.group(2)
    used = tuple(dict.fromkeys(_USED.findall(_without_comments(queries.load(name)))))
    return QueryInfo(name, " ".join(c for c in comments if c), examples, used)


def catalog(include_internal: bool = False) -> list[QueryInfo]:
    """Every named query; the internal ones (ingest/, agent/, export/, schema...) only when asked."""
    return [describe(n) for n in queries.names() if include_internal or _is_navigation(n)]


def _is_navigation(name: str) -> bool:
    """Questions a person asks: top-level files and the architecture review's (ingest/, agent/... are internal)."""
    return ("/" not in name or name.startswith("review/")) and not name.startswith(("schema", "graph_", "test_"))


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
