"""`kg mcp` under bad input: every request answered, limits enforced and stated, errors short and addressed to an
MCP client, stderr quiet, the real version reported. The graph is the real test Neo4j with tinyshop ingested.

Two kinds of client: the real MCP `ClientSession` over stdio for everything a conforming client can send, and a
raw JSON-RPC line writer for what no conforming client can (a lone surrogate, broken JSON, 5,000-deep nesting,
5 MB lines) — the bytes an attacker or a buggy client would put on the wire.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio
from kg.ingest.pipeline import Ingestor
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.navigate.mcp_server import MAX_LIMIT, MAX_NESTING, MAX_QUERY, MAX_REQUEST_CHARS, MAX_TEXT, kg_version
from kg.settings import Settings
from kg.store import Store

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


def env(settings: Settings, uri: str | None = None) -> dict[str, str]:
    return {**os.environ, "NEO4J_URI": uri or settings.uri, "NEO4J_PASSWORD": settings.password}


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None))


def run_session(settings: Settings, calls: list[tuple[str, dict]], uri: str | None = None) -> tuple[list, dict, str]:
    """Results of `calls` in one real MCP client session, the server's initialize answer, and its stderr."""
    results: list[Any] = []
    info: dict[str, Any] = {}
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], env=env(settings, uri))
    with tempfile.TemporaryFile("w+") as errlog:
        async def session() -> None:
            async with stdio_client(server, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                init = await client.initialize()
                info.update(name=init.server_info.name, version=init.server_info.version)
                for tool, args in calls:
                    results.append(await client.call_tool(tool, args))

        anyio.run(session)
        errlog.seek(0)
        return results, info, errlog.read()


class RawClient:
    """A `kg mcp` process spoken to in raw JSON-RPC lines (stderr drained, so a flood could not block it)."""

    def __init__(self, settings: Settings) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kg", "mcp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(settings))
        self.stderr: list[bytes] = []
        threading.Thread(target=lambda: self.stderr.append(self.proc.stderr.read()), daemon=True).start()
        self.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        assert self.receive()["id"] == 0
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 30) -> dict | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return json.loads(self.proc.stdout.readline()) if ready else None

    def close(self) -> int:
        self.proc.stdin.close()
        self.proc.wait(30)
        return len(b"".join(self.stderr))


def call_line(request_id: int, tool: str, arguments_json: str) -> str:
    head = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool}})
    return head[:-2] + ', "arguments": ' + arguments_json + "}}"


def test_every_raw_request_gets_an_answer(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    client = RawClient(graph_settings)
    lines = {
        1: call_line(1, "find", '{"text": "\\ud800x"}'),  # a lone surrogate
        2: call_line(2, "find", '{"text": "x\\udc00"}'),
        3: call_line(3, "find", json.dumps({"text": "a" * 5_000_000})),  # 5 MB
        4: call_line(4, "impact", '{"symbols": ' + "[" * 5000 + "]" * 5000 + "}"),  # 5,000 deep
        5: call_line(5, "find", '{"text": "x}}'),  # not JSON
        6: '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"not an object"}',
        7: call_line(7, "cypher", json.dumps({"query": "RETURN 1", "params": "[" * 5000 + "]" * 5000})),
        8: call_line(8, "find", '{"text": "checkout", "limit": -3}'),
    }
    answers = {}
    for request_id, line in lines.items():
        client.send(line)
        answers[request_id] = client.receive()
    client.send(call_line(9, "find", '{"text": "checkout"}'))  # and the server still serves
    after = client.receive()
    stderr_bytes = client.close()

    assert all(a is not None for a in answers.values()), [i for i, a in answers.items() if a is None]
    assert {i: a["id"] for i, a in answers.items()} == {i: i for i in lines}
    assert "lone UTF-16 surrogate" in answers[1]["error"]["message"]
    assert "lone UTF-16 surrogate" in answers[2]["error"]["message"]
    assert f"at most {MAX_REQUEST_CHARS:,}" in answers[3]["error"]["message"]
    assert len(json.dumps(answers[3])) < 500  # the 5 MB is never echoed
    assert f"at most {MAX_NESTING}" in answers[4]["error"]["message"]
    assert answers[5]["error"]["code"] == -32700
    assert "error" in answers[6]
    assert answers[7]["result"]["isError"] and "nests 5,000 levels" in answers[7]["result"]["content"][0]["text"]
    assert answers[8]["result"]["isError"] and "`limit` must be between 1" in answers[8]["result"]["content"][0][
        "text"]
    assert "shop.cart.Cart.checkout" in after["result"]["content"][0]["text"]
    assert stderr_bytes < 2000, "stderr was flooded"


def test_limits_are_enforced_short_and_stated(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    long_name = "a" * 500_000
    calls = [
        ("find", {"text": long_name}),
        ("callers", {"symbol": "Cart.checkout", "limit": 0}),
        ("callers", {"symbol": "Cart.checkout", "limit": MAX_LIMIT + 1}),
        ("callers", {"symbol": "Cart.checkout", "depth": 0}),
        ("callers", {"symbol": "Cart.checkout", "depth": 11}),
        ("impact", {"symbols": [f"s{i}" for i in range(101)]}),
        ("impact", {"symbols": []}),
        ("cypher", {"query": "RETURN 1 AS one", "params": "[]"}),
        ("cypher", {"query": "RETURN 1 AS one", "params": '{"x": ' + "[" * 100 + "]" * 100 + "}"}),
        ("cypher", {"query": "RETURN 1 AS one", "params": json.dumps({"x": "y" * 200_000})}),
        ("cypher", {"query": "MATCH (n) RETURN n " + " " * MAX_QUERY}),
        ("cypher", {"query": "RETURN $x AS x", "params": '{"x": 123456789012345678901234567890}'}),
        ("cypher", {"query": "UNWIND range(1, 3000000) AS x RETURN x", "limit": 5}),
        ("find", {"text": "check\U0001f600out"}),  # a surrogate pair on the wire: valid text
        ("tests_for", {"symbols": ["Cart.checkout"], "evidence": "e" * 900}),  # under the name limit
        ("changes", {"evidence": "e" * 5_000}),
    ]
    results, info, stderr = run_session(graph_settings, calls)
    texts = [text_of(r) for r in results]
    assert all(r.is_error for r in results[:12]), [t[:100] for t in texts]
    assert f"at most {MAX_TEXT:,}" in texts[0] and "aaaa" not in texts[0]
    assert "`limit` must be between 1 and 1,000, not 0" in texts[1] and "not 1001" in texts[2]
    assert "`depth` must be between 1 and 10, not 0" in texts[3] and "not 11" in texts[4]
    assert "101 entries" in texts[5] and "0 entries" in texts[6]
    assert "must be a JSON object" in texts[7] and "nests 101 levels" in texts[8] and "at most 100,000" in texts[9]
    assert f"at most {MAX_QUERY:,}" in texts[10] and "64 bits" in texts[11]
    assert not results[12].is_error and texts[12].startswith("cypher: showing 5 of at least 6 rows")
    assert not results[13].is_error
    assert results[14].is_error and "evidence must be one of" in texts[14] and "e" * 50 not in texts[14]
    assert results[15].is_error and "`evidence` is 5,000 characters" in texts[15]
    assert all(len(t) < 400 for t in texts[:12] + texts[14:])
    assert info == {"name": "kg", "version": kg_version()} and info["version"] not in ("", "unknown")
    assert stderr.strip() == "", stderr[:500]


def test_argument_errors_name_the_field_and_the_rule_never_the_input(store: Store, graph_settings: Settings) -> None:
    """Pydantic's own message quoted the whole input (`input_value=…`) and a docs URL to the client."""
    Ingestor(store, TINYSHOP, repo="shop").run()
    hostile = "\x1b]52;c;ZXZpbA==\x07" + "y" * 100_000
    calls = [("callers", {"name": "Flask.wsgi_app"}),  # `symbol` is missing, an unknown one given
             ("callers", {"symbol": "Cart.checkout", "limit": hostile}),
             ("impact", {"symbols": hostile}),
             ("path", {"source": ["a"] * 5000, "target": {"k": hostile}, "depth": hostile, "limit": hostile,
                       "repo": 7}),
             ("context", {"task": "fix checkout", "type": hostile}),
             ("x" * 50_000, {}),  # an unknown tool, quoted by the library
             ("callers", {"symbol": "Cart.checkout", "repo": "shop"})]  # still answers afterwards
    results, _, stderr = run_session(graph_settings, calls)
    texts = [text_of(r) for r in results]
    assert all(r.is_error for r in results[:6]), [t[:200] for t in texts]
    for text in texts[:6]:
        assert "yyyy" not in text and "\x1b" not in text and "Flask.wsgi_app" not in text and text.count("x") < 80
        assert "input_value" not in text and "pydantic.dev" not in text
        assert len(text) <= 1_600
    assert "`symbol`: field required" in texts[0]
    assert "`limit`:" in texts[1] and "integer" in texts[1]
    assert "`symbols`:" in texts[2] and "list" in texts[2]
    assert all(f"`{name}`" in texts[3] for name in ("source", "target", "depth", "limit", "repo"))
    assert "`type` must be one of" in texts[4] and len(texts[4]) < 300
    assert texts[5].startswith("unknown tool 'xxx") and "50,000 characters" in texts[5] and len(texts[5]) < 200
    assert not results[6].is_error and "Cart.checkout" in texts[6]
    assert stderr.strip() == "", stderr[:500]


def test_cypher_probes_are_refused_through_mcp(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    probes = ["LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
              f"LOAD CSV FROM 'file://{Path(graph_settings.data_dir).resolve()}/password' AS l RETURN l",
              "SHOW USERS", "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "CALL db.clearQueryCaches()",
              "MATCH (m:Module) SET m.path = 'owned' RETURN count(m)"]
    results, _, _ = run_session(graph_settings, [("cypher", {"query": q}) for q in probes])
    assert all(r.is_error and "refused" in text_of(r) for r in results), [text_of(r)[:100] for r in results]
    assert "root:" not in "".join(text_of(r) for r in results)
    assert store.read_text("MATCH (m:Module {path: 'owned'}) RETURN count(m) AS n")[0]["n"] == 0


def test_errors_tell_an_mcp_client_what_to_change(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    Ingestor(store, TINYSHOP, repo="shop-copy").run()
    calls = [("callers", {"symbol": "Cart.checkout"}),  # ambiguous across the two repositories
             ("callers", {"symbol": "no_such_thing_anywhere", "repo": "shop"}),
             ("callers", {"symbol": "shop/cart.py", "repo": "shop"}),
             ("changes", {"since": "HEAD", "staged": True, "repo": "nope"})]
    results, _, _ = run_session(graph_settings, calls)
    texts = [text_of(r) for r in results]
    assert all(r.is_error for r in results)
    assert "the `repo` argument" in texts[0] and "--repo" not in texts[0]
    assert "use the `find` tool" in texts[1] and "kg find" not in texts[1]
    assert "use the `impact` tool" in texts[2] and "kg impact" not in texts[2]
    assert "no repository named 'nope'" in texts[3]


def test_an_unreachable_graph_is_one_line_for_the_client_and_no_driver_noise(graph_settings: Settings) -> None:
    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        uri = f"bolt://127.0.0.1:{probe.getsockname()[1]}"
    results, _, stderr = run_session(graph_settings, [("find", {"text": "x"})], uri=uri)
    assert results[0].is_error and f"cannot reach Neo4j at {uri}" in text_of(results[0])
    assert "ask the user to check NEO4J_URI" in text_of(results[0])
    assert stderr.strip() == "", stderr[:500]


def test_argument_errors_are_capped_at_a_few_problems() -> None:
    from pydantic import ValidationError, create_model

    from kg.navigate.mcp_server import MAX_ARGUMENT_PROBLEMS, argument_error

    model = create_model("manyArguments", **{f"a{i}": (int, ...) for i in range(9)})
    try:
        model(**{f"a{i}": "z" * 10_000 for i in range(9)})
    except ValidationError as e:
        text = argument_error("many", e)
    assert text.count("`a") == MAX_ARGUMENT_PROBLEMS and "(and 4 more)" in text and "zzz" not in text


def test_unknown_prompts_and_resources_are_short_errors_logged_in_one_line(
        store: Store, graph_settings: Settings) -> None:
    """The library answers an unknown prompt or resource by quoting it whole and logging a rich traceback of it on
    the event loop: a 100,000-character name held every other call for minutes. kg answers like an unknown tool."""
    Ingestor(store, TINYSHOP, repo="shop").run()
    answers: list[str] = []
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], env=env(graph_settings))
    with tempfile.TemporaryFile("w+") as errlog:
        async def session() -> None:
            async with stdio_client(server, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                for ask in (lambda: client.get_prompt("A" * 100_000 + "\x1b[2J"),
                            lambda: client.read_resource("file:///" + "B" * 100_000)):
                    try:
                        await ask()
                        answers.append("answered")
                    except Exception as e:  # the client raises the server's JSON-RPC error
                        answers.append(str(e))
                answers.append(text_of(await client.call_tool("find", {"text": "checkout", "repo": "shop"})))

        anyio.run(session)
        errlog.seek(0)
        stderr = errlog.read()
    prompt, resource, found = answers
    assert "unknown prompt" in prompt and len(prompt) < 300, prompt[:400]
    assert "unknown resource" in resource and len(resource) < 300, resource[:400]
    assert "checkout" in found
    assert len(stderr) < 2_000 and "\x1b" not in stderr and "Traceback" not in stderr, stderr[:500]
