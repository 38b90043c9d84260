"""What the named queries are and what they ask for, read from the `.cypher` files themselves.

A query file documents itself for Neo4j Browser: `//` comments saying what it answers, then one
`:params {name: value, ...}` line a person runs in Browser before the query (older files: one `:param name => value;`
line per parameter). `kg query --list`, `kg query NAME` (which parameters are missing), the Browser guide and the
tests that run every file with its own example values all read that header, so the documentation cannot drift from
the query.

Why one `:params` line: Neo4j Browser runs a paste of several statements as a script whose frame shows each
statement's status but never its rows, so the parameters and the query must run as two frames. One line sets every
parameter in one frame; the query, run alone, shows its table or its graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kg import queries

_PARAM = re.compile(r"^\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.*?)\s*;?\s*$")
_PARAMS = re.compile(r"^\s*:params\s+(\{.*\})\s*;?\s*$")
_KEY = re.compile(r"^\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\s*:\s*(.*?)\s*$", re.DOTALL)
_USED = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class QueryInfo:
    name: str
    summary: str  # the opening comment, joined into one paragraph
    examples: dict[str, str]  # parameter → the Cypher literal its `:param` line gives (Browser's example value)
    used: tuple[str, ...]  # every `$parameter` the query text refers to, in order of first use
    body: str = ""  # the query without its header: what Browser runs after the parameters

    @property
    def params_line(self) -> str:
        """The one Browser command that sets every example parameter: `:params {repo: 'tinyshop', ...}`."""
        return ":params {" + ", ".join(f"{k}: {v}" for k, v in self.examples.items()) + "}"

    @property
    def first_line(self) -> str:
        """The opening sentence (a question, in kg's query files)."""
        return re.split(r"(?<=[.?])\s", self.summary, maxsplit=1)[0]


def source(name: str) -> str:
    """The file exactly as Browser would get it, `:param` lines included."""
    queries.load(name)  # raises QueryNotFound for a bad or unknown name
    # beside kg.queries, as its loader finds them (importlib.resources would cost every answer ~4 ms of imports)
    return (queries._ROOT / f"{name}.cypher").read_text(encoding="utf-8")


def describe(name: str) -> QueryInfo:
    text = source(name)
    comments: list[str] = []
    examples: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//") and not examples:
            comments.append(stripped.lstrip("/").strip())
        elif match := _PARAMS.match(line):
            examples.update(map_entries(match.group(1)))
        elif match := _PARAM.match(line):
            examples[match.group(1)] = match.group(2)
    body = queries.load(name)
    used = tuple(dict.fromkeys(_USED.findall(_without_comments(body))))
    return QueryInfo(name, " ".join(c for c in comments if c), examples, used, body)


def map_entries(literal: str) -> dict[str, str]:
    """`{a: 1, b: ['x', 'y']}` → {"a": "1", "b": "['x', 'y']"}: the keys of a Cypher map literal with each value's
    own literal text, split at the top-level commas (commas inside lists, maps, calls or strings stay)."""
    inner = literal.strip()[1:-1]
    entries: list[str] = []
    depth, quote, start, i = 0, "", 0, 0
    while i < len(inner):
        c = inner[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif c == "," and depth == 0:
            entries.append(inner[start:i])
            start = i + 1
        i += 1
    entries.append(inner[start:])
    found = {}
    for entry in entries:
        if entry.strip():
            match = _KEY.match(entry)
            if not match:
                raise ValueError(f"not a `key: value` entry of a :params map: {entry.strip()!r}")
            found[match.group(1)] = match.group(2)
    return found


def catalog(include_internal: bool = False) -> list[QueryInfo]:
    """Every named query; the internal ones (ingest/, agent/, export/, schema...) only when asked."""
    return [describe(n) for n in queries.names() if include_internal or _is_navigation(n)]


def _is_navigation(name: str) -> bool:
    """Questions a person asks: top-level files and the architecture review's (ingest/, agent/... are internal)."""
    return ("/" not in name or name.startswith("review/")) and not name.startswith(("schema", "graph_", "test_"))


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
