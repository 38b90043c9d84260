"""`kg mcp`: kg's navigation questions as MCP tools over stdio, for coding agents.

Answers are compact text (a header, tab-separated rows, notes) rather than JSON: an agent pays per token, and a
truncation note says what `limit` left out so it can ask again with a larger one. Every tool calls the same
library function as the CLI and runs in a read transaction (but the memory tools' record_decision, which
writes through kg.memory's checks); `cypher` runs only queries that read the graph
(kg.readonly), with a server-side timeout, and stops at its limit.

Every request gets an answer: a line the MCP library would drop (not JSON, a lone UTF-16 surrogate, nesting past
MAX_NESTING, over MAX_REQUEST_CHARS) is answered with a JSON-RPC error for its id by `_checked_lines`. Arguments
have the limits below (each tool's description says them); errors quote at most a short piece of any input and
say what to change in the call, not which CLI flag to use.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import AsyncIterator, Callable
from importlib.metadata import PackageNotFoundError, version
from io import TextIOWrapper
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from kg.errors import KgError, shorten
from kg.graph import open_graph
from kg.memory import mcp_tools as memory_tools
from kg.navigate import answers
from kg.navigate.changes import changes as diff_changes
from kg.navigate.mcp_limits import (
    MAX_LIMIT,
    MAX_SYMBOLS,
    MAX_TEXT,
    checked,
    checked_text,
    checked_texts,
)
from kg.navigate.render import compact
from kg.render import inline
from kg.settings import Settings
from kg.store import UNTRUSTED_TIMEOUT, Store

MAX_REQUEST_CHARS = 1_000_000  # one JSON-RPC message
MAX_NESTING = 64  # brackets deep, in a message or in cypher's params
MAX_QUERY = 20_000  # cypher's query text
MAX_PARAMS = 100_000  # cypher's params JSON
MAX_ERROR = 1_500  # characters of an error an MCP client gets
MAX_ARGUMENT_PROBLEMS = 5  # wrong arguments named in one error
MAX_LOG_LINE = 300  # characters of a line the server logs to stderr
MAX_ANSWER = 200_000  # characters of an answer: the client pays per token, and serialising 24 MB took minutes

INSTRUCTIONS = (
    "kg answers questions about code from a Neo4j graph of modules, symbols, calls, imports and inheritance. "
    "Name symbols by dotted name (full, or a unique suffix such as `Cart.checkout`), a file path, or `path:line`. "
    "Confidence 1.0 means the edge is certain; lower values are name-based or dynamic guesses. "
    f"Limits: names, paths and revisions up to {MAX_TEXT:,} characters, up to {MAX_SYMBOLS} symbols per call, "
    f"`limit` 1–{MAX_LIMIT:,}, `depth` 1–{answers.MAX_DEPTH}, a request up to {MAX_REQUEST_CHARS:,} characters."
)
_LIMITS = f" `limit`: 1–{MAX_LIMIT:,} rows; names up to {MAX_TEXT:,} characters."


def kg_version() -> str:
    try:
        return version("kg")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class Graph:
    """One store for the server's life, opened on the first tool call (listing tools needs no database)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None

    def ask(self, question: Callable[[Store], str]) -> str:
        try:
            if self._store is None:
                self._store = open_graph(self.settings)
            return capped(question(self._store))
        except KgError as e:
            raise ToolError(for_mcp(str(e))) from e

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def capped(answer: str) -> str:
    """At most MAX_ANSWER characters of `answer`, saying what was cut."""
    if len(answer) <= MAX_ANSWER:
        return answer
    return (answer[:MAX_ANSWER] + f"\n… (cut: the answer is {len(answer):,} characters and kg sends at most "
            f"{MAX_ANSWER:,}; ask for fewer rows or smaller values)")


# The library's errors name CLI flags and commands; an MCP client changes arguments, or asks its user to run kg.
_FOR_MCP = [
    # Lucene's limits on a full-text search (TooManyClauses, "automaton too large") as what to change in the call
    (re.compile(r"^Neo4j refused the query: .*(?:TooManyClauses|maxClauseCount|automaton|too many clauses).*$",
                re.IGNORECASE | re.DOTALL),
     "the name is too long or has too many words for the full-text search: give a shorter name (a dotted name, "
     "a path or a few words)"),
    (re.compile(r"try `kg find [^`]*` for fuzzy matches"), "use the `find` tool for fuzzy matches"),
    (re.compile(r"\(try `kg impact ([^`]*)`\)"), r"(use the `impact` tool on \1)"),
    (re.compile(r"--since and --staged do not go together: pick one"), "give `since` or `staged`, not both"),
    (re.compile(r"start it with `kg server start`"), "ask the user to start it (`kg server start`)"),
    (re.compile(r"ingest one first \(`kg ingest PATH`\)"), "ask the user to ingest one (`kg ingest PATH`)"),
    (re.compile(r"check NEO4J_URI"), "ask the user to check NEO4J_URI where `kg mcp` runs"),
    (re.compile(r"(?<!run )(`kg (?:server|ingest)[^`]*`)"), r"the user can run \1"),
]
_FLAG = re.compile(r"--(repo|limit|depth|since|staged|why)\b")


def for_mcp(message: str) -> str:
    """A kg error as an MCP client should read it: what to change in the call, at most MAX_ERROR characters."""
    for pattern, replacement in _FOR_MCP:
        message = pattern.sub(replacement, message)
    # A flag becomes the MCP argument, except in a quoted command the user is to run (`kg ingest … --repo x`).
    parts = message.split("`")
    message = "`".join(_FLAG.sub(r"the `\1` argument", p) if i % 2 == 0 else p for i, p in enumerate(parts))
    return message if len(message) <= MAX_ERROR else message[:MAX_ERROR] + "… (cut)"


class KgServer(MCPServer):
    """The MCP server with errors that quote nothing of the caller's input: pydantic's argument errors repeat the
    whole input (it may be megabytes, or hostile) and a docs URL; kg answers with the field and the rule."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name not in {tool.name for tool in await self.list_tools()}:  # the library quotes the whole name
            raise ToolError(f"unknown tool {shorten(name, 60)}: tools/list names the tools")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if isinstance(e.__cause__, ValidationError):
                raise ToolError(argument_error(name, e.__cause__)) from e.__cause__
            raise

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        # kg offers no prompts; the library would quote the whole name, and log it with a traceback.
        raise ToolError(f"unknown prompt {shorten(name, 60)}: kg offers no prompts, only tools (tools/list)")

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        raise ToolError(f"unknown resource {shorten(str(uri), 60)}: kg offers no resources, only tools (tools/list)")


class OneLineLog(logging.Formatter):
    """A log record as one short printable line: the library logs a failed request with the caller's input and a
    traceback, and rich rendered a 100,000-character name for minutes on the event loop every request waits on."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__})"
        line = "".join(c if c.isprintable() else " " for c in text[:MAX_LOG_LINE + 1])
        return line if len(line) <= MAX_LOG_LINE else line[:MAX_LOG_LINE] + "…"


def quiet_library_logging() -> None:
    """Replace the handlers the MCP library installs on the root logger (rich, with tracebacks) with OneLineLog."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineLog())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)


def argument_error(tool: str, error: ValidationError) -> str:
    """`tool`'s argument problems as `field`: rule, at most MAX_ARGUMENT_PROBLEMS of them, no input quoted."""
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    shown = ["`" + ".".join(str(part)[:40] for part in p["loc"])[:100] + "`: " + str(p["msg"])[:200].lower()
             for p in problems[:MAX_ARGUMENT_PROBLEMS]]
    more = f" (and {len(problems) - MAX_ARGUMENT_PROBLEMS} more)" if len(problems) > MAX_ARGUMENT_PROBLEMS else ""
    return (f"Error executing tool {tool[:100]}: wrong arguments: {'; '.join(shown)}{more} (the tool's input "
            "schema gives each argument's type)")


def build(settings: Settings) -> tuple[MCPServer, Graph]:
    # WARNING: a failed call is the client's answer, not something to log; real faults still reach stderr.
    server = KgServer("kg", instructions=INSTRUCTIONS, version=kg_version(), log_level="WARNING")
    quiet_library_logging()
    graph = Graph(settings)

    @server.tool(description="Where a name is defined: exact dotted-name matches first, then fuzzy full-text "
                             f"matches.{_LIMITS}")
    def find(text: str, repo: str | None = None, limit: int = 20) -> str:
        checked(limit, text=text, repo=repo)
        return graph.ask(lambda s: compact(answers.find(s, text, repo, limit)))

    @server.tool(description="Who calls a symbol, directly (depth 1) or transitively (depth up to "
                             f"{answers.MAX_DEPTH}).{_LIMITS}")
    def callers(symbol: str, depth: int = 1, repo: str | None = None, limit: int = 30) -> str:
        checked(limit, depth, symbol=symbol, repo=repo)
        return graph.ask(lambda s: compact(answers.callers(s, symbol, repo, depth, 0.0, limit)))

    @server.tool(description="What a symbol calls, directly (depth 1) or transitively (depth up to "
                             f"{answers.MAX_DEPTH}).{_LIMITS}")
    def callees(symbol: str, depth: int = 1, repo: str | None = None, limit: int = 30) -> str:
        checked(limit, depth, symbol=symbol, repo=repo)
        return graph.ask(lambda s: compact(answers.callees(s, symbol, repo, depth, 0.0, limit)))

    @server.tool(description="What may break if these symbols, modules or files change: callers, importers, "
                             f"subclasses by depth. Up to {MAX_SYMBOLS} symbols.{_LIMITS}")
    def impact(symbols: list[str], depth: int = 5, repo: str | None = None, limit: int = 40) -> str:
        checked(limit, depth, symbols, repo=repo)
        return graph.ask(lambda s: compact(answers.impact(s, symbols, repo, depth, 0.0, limit)))

    @server.tool(description=f"The shortest call paths from one symbol to another.{_LIMITS}")
    def path(source: str, target: str, depth: int = 6, repo: str | None = None, limit: int = 3) -> str:
        checked(limit, depth, source=source, target=target, repo=repo)
        return graph.ask(lambda s: compact(answers.call_path(s, source, target, repo, depth, limit)))

    @server.tool(description=f"The tests (pytest node ids) that exercise these symbols, each saying whether static "
                             "analysis, an observed test run (`kg observe`) or both found it, and when the "
                             "observation is stale. `evidence`: combined (default), static, observed or any. Up to "
                             f"{MAX_SYMBOLS} symbols.{_LIMITS}")
    def tests_for(symbols: list[str], depth: int = 8, repo: str | None = None, limit: int = 40,
                  evidence: str = "combined") -> str:
        checked(limit, depth, symbols, repo=repo, evidence=evidence)
        return graph.ask(lambda s: compact(answers.tests_for(s, symbols, repo, depth, limit, evidence)))

    @server.tool(description="From `git diff` of an ingested repository: changed symbols, their impact and the "
                             "tests to run (each test says whether static analysis, an observed run or both selected "
                             "it; `evidence` as in tests_for). `since` is a commit (a branch, tag, id or HEAD~2; "
                             "default HEAD); "
                             f"`path`, when given, is inside the repository's ingested root.{_LIMITS}")
    def changes(path: str | None = None, since: str | None = None, staged: bool = False, repo: str | None = None,
                limit: int = 40, evidence: str = "combined") -> str:
        checked(limit, path=path, since=since, repo=repo, evidence=evidence)

        def answer(s: Store) -> str:
            report = diff_changes(s, Path(path) if path else None, repo, since, staged, limit=limit,
                                  evidence=evidence)
            head = [f"changed in {report.repo}: {len(report.changed)} symbols"]
            head += [inline(f"warning: {report.warning()}")] if report.warning() else []
            head += ["\t".join(inline(v) for v in (r["qname"], r["kind"], f"{r['path']}:{r['lines']}"))
                     for r in report.changed[:limit]]
            return "\n\n".join(["\n".join(head), compact(report.impact), compact(report.tests)])
        return graph.ask(answer)

    @server.tool(description="A module's public interface (signatures, first doc line, uses) and its "
                             f"dependencies both ways.{_LIMITS}")
    def module_summary(module: str, repo: str | None = None, limit: int = 30) -> str:
        checked(limit, module=module, repo=repo)

        def answer(s: Store) -> str:
            summary = answers.module_summary(s, module, repo, limit)
            target = summary["module"]
            return "\n\n".join([f"module {target.qname} ({target.path}, {summary['loc']} lines)",
                                compact(summary["interface"]), compact(summary["dependencies"])])
        return graph.ask(answer)

    @server.tool(description=(
        "Run Cypher that reads the graph (params as a JSON object). Nodes: Repo, Module, Symbol (Class|Function|"
        "Method|Variable; key repo:qname), External; edges: CONTAINS, DEFINES, CALLS/IMPORTS/INHERITS {line, "
        "resolution, confidence}. Only reading queries run: a query starts with MATCH, OPTIONAL MATCH, WITH, "
        "UNWIND, RETURN or CALL; no writes, LOAD CSV, administration commands or procedures beyond db.labels, "
        "db.schema.* and the full-text/vector index queries; no reduce() (but over relationships(p)), range() in an "
        "expression beyond 100,000 elements or nested list comprehensions: the timeout cannot stop those (UNWIND "
        f"instead). Limits: query up to {MAX_QUERY:,} characters, params up to {MAX_PARAMS:,} characters and "
        f"{MAX_NESTING} levels deep, `limit` 1–{MAX_LIMIT:,} rows (the query stops there), {UNTRUSTED_TIMEOUT:g} s."))
    def cypher(query: str, params: str = "{}", limit: int = 50) -> str:
        checked(limit)
        checked_text("query", query, MAX_QUERY)
        values = parse_params(params)
        return graph.ask(lambda s: compact(answers.run_cypher(s, query, values, limit)))

    # ── project memory: its tools live in kg.memory.mcp_tools and are registered here ──
    memory_tools.register(server, graph)

    # ── from a task to context: the `context` tool is defined in its own block below ──
    _context_tool(server, graph)
    return server, graph


def parse_params(params: str | None) -> dict[str, Any]:
    """cypher's `params`: a JSON object within the size and nesting limits, or a ToolError saying which."""
    checked_text("params", params, MAX_PARAMS)
    if (depth := nesting(params or "")) > MAX_NESTING:
        raise ToolError(f"`params` nests {depth:,} levels deep; at most {MAX_NESTING} are accepted")
    try:
        values = json.loads(params or "{}")
    except json.JSONDecodeError as e:
        raise ToolError(f"`params` is not a JSON object: {e.msg} at character {e.pos}") from e
    if not isinstance(values, dict):
        raise ToolError("`params` must be a JSON object, such as {\"repo\": \"shop\"}")
    return values


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def nesting(text: str) -> int:
    """How deep brackets nest in JSON `text`, strings skipped (a scan, so 5,000 levels cost no recursion)."""
    depth = deepest = 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _top_level_id(line: str) -> tuple[bool, object]:
    """(found, value) of the top-level `"id"` of a JSON-RPC line, read without parsing the rest; value is the
    ValueError when what follows `"id":` is not JSON."""
    depth = 0
    for m in _JSON_TOKEN.finditer(line):
        token = m.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
        elif depth == 1 and token == '"id"':
            rest = line[m.end():].lstrip()
            if not rest.startswith(":"):
                continue
            try:
                return True, json.JSONDecoder().raw_decode(rest[1:].lstrip())[0]
            except ValueError as e:
                return True, e
    return False, None


def _usable_id(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def request_id(line: str) -> int | str | None:
    """The top-level `id` of a JSON-RPC line (None when there is none to trust)."""
    found, value = _top_level_id(line)
    if not found or not _usable_id(value):
        return None
    try:
        if isinstance(value, str):
            value.encode("utf-8")  # a lone surrogate in the id itself: answer with a null id
    except UnicodeEncodeError:
        return None
    return value


def _bad_id(line: str) -> bool:
    """Whether `line` has a top-level `id` that is not a string or an integer (null, 1.5, true, an object): the
    library would take such a request for a notification and never answer it. Not JSON: a parse error instead."""
    found, value = _top_level_id(line)
    return found and not isinstance(value, ValueError) and not _usable_id(value)


def refusal(line: str) -> types.JSONRPCError | None:
    """None when the MCP library can read `line`, else the JSON-RPC error that answers it."""
    if len(line) > MAX_REQUEST_CHARS:
        return _error(line, types.INVALID_REQUEST, f"the request is {len(line):,} characters; kg accepts at most "
                                                   f"{MAX_REQUEST_CHARS:,} per request")
    if (depth := nesting(line)) > MAX_NESTING:
        return _error(line, types.INVALID_REQUEST, f"the request nests {depth:,} levels deep; kg accepts at most "
                                                   f"{MAX_NESTING}")
    if _bad_id(line):
        return _error(line, types.INVALID_REQUEST, "the request's `id` must be a string or an integer")
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except Exception as invalid:  # noqa: BLE001 (whatever the library rejects is answered, never dropped)
        reason = str(invalid).splitlines()[0][:200]
    try:
        parsed = json.loads(line)
    except ValueError as e:
        return _error(line, types.PARSE_ERROR, f"the request is not JSON ({getattr(e, 'msg', e)})")
    try:
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as e:
        return _error(line, types.INVALID_REQUEST, f"the request holds a lone UTF-16 surrogate ({e.object[e.start]!a}"
                                                   "): send text as UTF-8 or as complete surrogate pairs")
    return _error(line, types.INVALID_REQUEST, f"the request is not a JSON-RPC message MCP accepts: {reason}")


def _error(line: str, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id(line), error=types.ErrorData(code=code, message=message))


class CheckedStdin:
    """stdin's lines for the MCP library, with each line it would drop answered here instead."""

    def __init__(self) -> None:
        self.replies: Any = None  # the server's write stream, set once the transport is up
        self._ready = anyio.Event()

    def attach(self, write_stream: Any) -> None:
        self.replies = write_stream
        self._ready.set()

    async def lines(self, source: TextIOWrapper) -> AsyncIterator[str]:
        def read(size: int) -> Any:
            return anyio.to_thread.run_sync(source.readline, size)

        while line := await read(MAX_REQUEST_CHARS + 1):  # never more than one request's worth held
            if not line.strip():
                continue
            if len(line) > MAX_REQUEST_CHARS and not line.endswith("\n"):
                size = len(line)
                while (rest := await read(MAX_REQUEST_CHARS)) and not rest.endswith("\n"):
                    size += len(rest)  # the rest of the line is read and dropped, a piece at a time
                size += len(rest.rstrip("\n"))
                error = _error(line, types.INVALID_REQUEST, f"the request is {size:,} characters; kg accepts at most "
                                                            f"{MAX_REQUEST_CHARS:,} per request")
            else:
                error = refusal(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            try:
                await self.replies.send(SessionMessage(error))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


async def serve_stdio(server: MCPServer) -> None:
    """MCPServer.run_stdio_async with checked stdin (the library has no hook for it, hence the low-level server)."""
    checked = CheckedStdin()
    stdin = TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    async with stdio_server(stdin=checked.lines(stdin)) as (read_stream, write_stream):
        checked.attach(write_stream)
        low = server._lowlevel_server
        await low.run(read_stream, write_stream, low.create_initialization_options())


# ── from a task to context (kg.retrieve) ─────────────────────────────────────────────────────────────────────────


def _context_tool(server: MCPServer, graph: Graph) -> None:
    """The `context` tool: the same ranked, budgeted context as `kg context --task` (kg.retrieve.context)."""
    from kg.navigate.targets import repo_here
    from kg.retrieve.config import TASK_TYPES, load_budget, load_orchestrator
    from kg.retrieve.context import build as build_context
    from kg.retrieve.service import task_repo

    @server.tool()
    def context(task: str, type: str = "modify", budget: int | None = None, repo: str | None = None,
                files_only: bool = False) -> str:
        """From a task or bug report in words (a pasted traceback is fine) to the files and symbols that matter,
        ranked, with why each was chosen and, by task type (read, modify, debug, refactor), their code,
        callers/callees, tests, decisions, fitted to a token budget. files_only: just the ranked paths."""
        checked_texts(repo=repo)
        if type not in TASK_TYPES:
            given = repr(type) if len(type) <= 40 else f"a text of {len(type):,} characters"
            raise ToolError(f"`type` must be one of {', '.join(TASK_TYPES)}, not {given}")

        def answer(s: Store) -> str:
            project = graph.settings.project
            result = build_context(s, task_repo(s, repo or repo_here(s)), task, type, budget=budget,
                                   orchestrator=load_orchestrator(project), limits=load_budget(project))
            head = [f"note: {n}" for n in result.notes] + [f"budget alert: {a}" for a in result.alerts]
            if files_only:
                return "\n".join(head + [f.path for f in result.files])
            steps = ", ".join(result.degradation) or "none"
            tail = f"({result.tokens:,}/{result.budget:,} tokens; degradation: {steps})"
            return "\n\n".join(x for x in ("\n".join(head), result.text(), tail) if x)
        return graph.ask(answer)


def serve(settings: Settings) -> None:
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)  # as kg.cli.main: kg reports a lost connection itself
    server, graph = build(settings)
    try:
        anyio.run(serve_stdio, server)
    finally:
        graph.close()


def tool_names() -> list[str]:
    """The tools `kg mcp` offers (for docs and tests)."""
    return ["find", "callers", "callees", "impact", "path", "tests_for", "changes", "module_summary", "cypher",
            *memory_tools.TOOL_NAMES, "context"]


__all__ = ["build", "serve", "tool_names"]
