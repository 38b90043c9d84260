"""Whether Cypher someone typed only reads the graph: Neo4j's own plan first, a lexical check where it cannot see.

A READ transaction is not enough (checked on 5.26): `LOAD CSV` reads host files and URLs, `SHOW USERS`,
`SHOW TRANSACTIONS`, `TERMINATE TRANSACTIONS` and `CALL db.clearQueryCaches()` all run there. So text from MCP's
`cypher` (or any other caller that passes user text to `Store.read_untrusted`) must pass two checks:

- `check_text`, lexical, for what `EXPLAIN` does not plan or plans on another database: the statement must start
  with a reading clause (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CALL), so administration commands (SHOW,
  TERMINATE, CREATE/ALTER/DROP …, GRANT, and `USE system`) never reach the server; no `USE` opens a subquery; one
  statement only; function calls only in Neo4j's built-in namespaces (a plugin's functions may do I/O); and no
  expression the server's timeout cannot stop (`check_bounded`).
- `check_plan`, on the summary of `EXPLAIN <text>`: the query type must be read-only ("r"), and no operator may load
  CSV, run a procedure outside READ_PROCEDURES, show or terminate anything, run on the system database or commit in
  batches (`CALL {…} IN TRANSACTIONS`).
"""

from __future__ import annotations

import re
from typing import Any

from kg.errors import QueryError

READING_CLAUSES = ("MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL")
# Procedures that only read the graph or its schema.
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization",
    "db.schema.nodeTypeProperties", "db.schema.relTypeProperties", "db.index.fulltext.queryNodes",
    "db.index.fulltext.queryRelationships", "db.index.vector.queryNodes", "db.index.vector.queryRelationships",
})
# Namespaces of Neo4j's built-in functions (`date.truncate`, `point.distance`, `vector.similarity.cosine` …).
BUILTIN_NAMESPACES = frozenset({"date", "datetime", "localdatetime", "localtime", "time", "duration", "point", "db",
                                "vector", "graph"})
_REFUSED_OPERATORS = {
    "LoadCSV": "LOAD CSV reads files and URLs",
    "TransactionApply": "CALL {…} IN TRANSACTIONS commits on its own",
    "TransactionForeach": "CALL {…} IN TRANSACTIONS commits on its own",
    "AdministrationCommand": "administration commands are not queries of the graph",
    "SystemProcedureCall": "system procedures are not queries of the graph",
}
_QUERY_TYPES = {"rw": "it writes", "w": "it writes", "s": "it changes the schema or the server"}

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>'(?:[^'\\]|\\.)*(?:'|\Z)|"(?:[^"\\]|\\.)*(?:"|\Z))
  | (?P<quoted>`(?:[^`]|``)*(?:`|\Z))
  | (?P<word>[^\W\d]\w*)
  | (?P<number>\d[\w.]*)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


def _tokens(text: str) -> list[str]:
    """The words, backticked names and punctuation of `text`; comments and whitespace dropped, every string literal
    reduced to `'…'` so nothing inside one can look like a keyword."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("space", "comment"):
            continue
        out.append("'…'" if kind == "string" else m.group())
    return out


def check_text(text: str) -> None:
    """QueryError unless `text` is one statement that starts with a reading clause (see the module's docstring)."""
    tokens = _tokens(text)
    if not tokens:
        raise QueryError("empty Cypher: give a query that starts with MATCH, WITH, UNWIND, RETURN or CALL")
    first = tokens[0].upper()
    if first not in READING_CLAUSES:
        raise QueryError(f"refused: only queries that read the graph run here, and `{tokens[0][:30]}` does not "
                         "start one (start with MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN or CALL)")
    for i, token in enumerate(tokens):
        before = tokens[i - 1].upper() if i else ""
        if token.upper() == "USE" and before in ("{", "UNION", "ALL", "DISTINCT"):
            raise QueryError("refused: `USE` would leave kg's graph; queries run on it only")
        if token == ";" and any(t != ";" for t in tokens[i + 1:]):
            raise QueryError("refused: several statements; send one query at a time (no `;` between queries)")
    for name in _procedures(tokens):
        if name not in READ_PROCEDURES:
            raise QueryError(f"refused: procedure {name[:60]} is not one that only reads; allowed: "
                             f"{', '.join(sorted(READ_PROCEDURES))}")
    for name in _functions(tokens):
        if name.split(".")[0].lower() not in BUILTIN_NAMESPACES:
            raise QueryError(f"refused: {name[:60]}() is not one of Neo4j's built-in functions, the only ones run "
                             "here")
    check_bounded(tokens)


MAX_RANGE = 100_000  # elements a range() may have outside UNWIND
_ITERATIONS = ("ANY", "ALL", "NONE", "SINGLE", "REDUCE")  # function-like forms that loop over a list: f(x IN list …)


def check_bounded(tokens: list[str]) -> None:
    """QueryError for what Neo4j's timeout cannot stop. The timeout only marks a transaction; Neo4j looks at the
    mark between rows, never inside one expression (checked on 5.26 Community), and transaction memory limits do
    not count an expression's lists and strings either. So one row's `reduce(s = "", i IN range(1, 5000000) |
    s + "x")` kept a core busy for hours, and `[i IN range(1, 30000000) | i]` filled the heap until the server
    only collected garbage. Refused: reduce(), but over a path's relationships or nodes; a range() outside
    `UNWIND range(…)` (where each element is a row) unless both bounds are integers at most MAX_RANGE apart; a
    list comprehension or quantifier inside another (a square of the graph's size); a regular expression match
    (`=~`: Java's backtracking matcher ran a 120-character pattern for 6 minutes past the timeout, attack6 D1)."""
    loops: list[bool] = []  # per open bracket: does it open a loop over a list?
    tokens = [_bare(t) for t in tokens]  # `range`(…) calls range(): Neo4j reads a backticked function name as the name
    for i, token in enumerate(tokens):
        upper = token.upper()
        after_dot = i > 0 and tokens[i - 1] == "."
        if upper == "REDUCE" and i + 1 < len(tokens) and tokens[i + 1] == "(" and not after_dot \
                and not _over_a_path(tokens, i + 2):
            raise QueryError("refused: reduce() runs inside one row, where the server's timeout cannot stop it; "
                             "aggregate over rows instead (UNWIND … RETURN sum(…), collect(…))")
        if upper == "RANGE" and i + 1 < len(tokens) and tokens[i + 1] == "(" and not after_dot:
            if not (i > 0 and tokens[i - 1].upper() == "UNWIND") and not _small_range(tokens, i + 2):
                raise QueryError(f"refused: range() inside an expression runs within one row, where the server's "
                                 f"timeout cannot stop it; give integer bounds at most {MAX_RANGE:,} apart, or "
                                 "make rows of it (UNWIND range(…) AS i)")
        if token == "=" and i + 1 < len(tokens) and tokens[i + 1] == "~":
            raise QueryError("refused: a regular expression match (=~) runs inside one row, where the server's "
                             "timeout cannot stop it; use STARTS WITH, ENDS WITH or CONTAINS, or kg's full-text "
                             "index (CALL db.index.fulltext.queryNodes)")
        if token in ("[", "(", "{"):
            loop = (i + 2 < len(tokens) and _is_name(tokens[i + 1]) and tokens[i + 2].upper() == "IN"
                    and (token == "[" or (token == "(" and i > 0 and tokens[i - 1].upper() in _ITERATIONS)))
            if loop and any(loops):
                raise QueryError("refused: a list comprehension or any/all/none/single inside another runs within "
                                 "one row, where the server's timeout cannot stop it; make rows of the outer list "
                                 "(UNWIND … AS x) instead")
            loops.append(loop)
        elif token in ("]", ")", "}") and loops:
            loops.pop()


def _over_a_path(tokens: list[str], start: int) -> bool:
    """Whether the reduce() opening at `tokens[start]` loops over a path's `relationships(p)` or `nodes(p)` and
    nothing else (as kg's own queries do): as long as the pattern, never a long list. The list is what follows the
    accumulator's first value (`reduce(w = 1.0, e IN relationships(p) | …)`), read whole: `nodes(p) + l` or an `IN`
    hidden inside the first value are other lists."""
    depth, j = 0, start
    while j < len(tokens) and not (depth == 0 and tokens[j] == ","):
        if tokens[j] in ("(", "[", "{"):
            depth += 1
        elif tokens[j] in (")", "]", "}"):
            if depth == 0:
                return False
            depth -= 1
        j += 1
    loop = tokens[j + 1:j + 8]
    return (len(loop) == 7 and _is_name(loop[0]) and loop[1].upper() == "IN"
            and loop[2].lower() in ("relationships", "nodes") and loop[3] == "(" and _is_name(loop[4])
            and loop[5] == ")" and loop[6] == "|")


def _bare(token: str) -> str:
    """A backticked name as Neo4j reads it (`` `range` `` → range); any other token as it is."""
    return token[1:-1].replace("``", "`") if len(token) >= 2 and token[0] == token[-1] == "`" else token


def _small_range(tokens: list[str], start: int) -> bool:
    """Whether the arguments from `tokens[start]` are two or three integer literals spanning at most MAX_RANGE."""
    values: list[int] = []
    j = start
    while j < len(tokens):
        sign = -1 if tokens[j] == "-" else 1
        j += tokens[j] in ("-", "+")
        if j >= len(tokens) or not tokens[j].isdigit():
            return False
        values.append(sign * int(tokens[j]))
        if j + 1 >= len(tokens) or tokens[j + 1] not in (",", ")"):
            return False
        if tokens[j + 1] == ")":
            break
        j += 2
    if len(values) not in (2, 3) or (len(values) == 3 and values[2] == 0):
        return False
    step = abs(values[2]) if len(values) == 3 else 1
    return abs(values[1] - values[0]) // step <= MAX_RANGE


def _procedures(tokens: list[str]) -> list[str]:
    """The dotted name after every CALL (`CALL db.labels()`, `CALL db.labels YIELD …`); not `CALL {` subqueries."""
    found = []
    for i, token in enumerate(tokens[:-1]):
        if token.upper() == "CALL" and _is_name(tokens[i + 1]):
            j, parts = i + 1, [tokens[i + 1].strip("`")]
            while j + 2 < len(tokens) and tokens[j + 1] == "." and _is_name(tokens[j + 2]):
                parts.append(tokens[j + 2].strip("`"))
                j += 2
            found.append(".".join(parts))
    return found


def _functions(tokens: list[str]) -> list[str]:
    """The dotted name of every namespaced call `a.b(` that is not a procedure (CALL a.b(…))."""
    found = []
    for i, token in enumerate(tokens):
        if token != "(":
            continue
        parts: list[str] = []
        j = i - 1
        while j >= 0 and _is_name(tokens[j]):
            parts.append(tokens[j].strip("`"))
            if j >= 2 and tokens[j - 1] == ".":
                j -= 2
            else:
                break
        if len(parts) >= 2 and not (j >= 1 and tokens[j - 1].upper() == "CALL"):
            found.append(".".join(reversed(parts)))
    return found


def _is_name(token: str) -> bool:
    return token[:1] == "`" or token[:1].isalpha() or token[:1] == "_"


def check_plan(query_type: str | None, plan: dict[str, Any] | None) -> None:
    """QueryError unless the `EXPLAIN` summary (query type, plan tree) shows a query that only reads the graph."""
    if query_type != "r":
        why = _QUERY_TYPES.get(query_type or "", f"its query type is {query_type!r}")
        raise QueryError(f"refused: only queries that read the graph run here, and this one does not: {why}")
    for operator, details in _operators(plan):
        name, _, database = operator.partition("@")
        if database == "system":
            raise QueryError("refused: the system database is not kg's graph; queries run on kg's graph only")
        if name in _REFUSED_OPERATORS:
            raise QueryError(f"refused: {_REFUSED_OPERATORS[name]}; only queries that read the graph run here")
        if name.startswith(("Show", "Terminate")):
            raise QueryError(f"refused: {name} is an administration command; only queries that read the graph "
                             "run here")
        if name == "ProcedureCall":
            procedure = details.split("(", 1)[0].strip()
            if procedure not in READ_PROCEDURES:
                raise QueryError(f"refused: procedure {procedure[:60]} is not one that only reads; allowed: "
                                 f"{', '.join(sorted(READ_PROCEDURES))}")


def _operators(plan: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(operatorType, Details) of every operator in the plan tree."""
    found: list[tuple[str, str]] = []
    stack = [plan] if plan else []
    while stack:
        node = stack.pop()
        args = node.get("args") or {}
        found.append((str(node.get("operatorType", "")), str(args.get("Details", ""))))
        stack.extend(node.get("children") or [])
    return found
