"""`kg mcp` limits a hostile client met nowhere before: the memory tools' arguments, Lucene's limits as one plain
line, answers capped in size, a request line with no end, and requests whose `id` is not a string or an integer.
The server is a real `kg mcp` process on the real test Neo4j with tinyshop ingested, spoken to through the real MCP
ClientSession over stdio, or in raw JSON-RPC lines where no conforming client could send the bytes."""

from __future__ import annotations

import json
import time

from kg.ingest.pipeline import Ingestor

from kg.memory import items
from kg.navigate.mcp_server import MAX_ANSWER, MAX_REQUEST_CHARS
from kg.settings import Settings
from kg.store import Store
from tests.integration.test_mcp_hardening import TINYSHOP, RawClient, call_line, run_session, text_of


def test_memory_tools_have_the_same_limits_as_the_others(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    calls = [
        ("record_decision", {"text": "Checkout is pure", "about": ["Cart.checkout"] * 5000}),
        ("record_decision", {"text": "Checkout is pure", "about": ["a" * 1001]}),
        ("record_decision", {"text": "Checkout is pure", "about": []}),
        ("decisions", {"about": "x" * 5000}),
        ("memory", {"name": "y" * 900_000}),
        ("memory", {"name": "a" * 1000}),  # within kg's limit, past Lucene's ("automaton too large")
        ("find", {"text": "a" * 1000}),
        ("find", {"text": " ".join(["ab"] * 300)}),
    ]
    started = time.monotonic()
    results, _, stderr = run_session(graph_settings, calls)
    elapsed = time.monotonic() - started
    texts = [text_of(r) for r in results]
    assert all(r.is_error for r in results[:5]), [t[:120] for t in texts]
    assert "`about` has 5,000 entries; give 1 to 100" in texts[0]
    assert "`about` is 1,001 characters; at most 1,000" in texts[1] and "0 entries" in texts[2]
    assert "`about` is 5,000 characters" in texts[3] and "`name` is 900,000 characters" in texts[4]
    assert items.load(store, "shop") == []  # nothing recorded
    for text in texts[5:]:
        assert "TooManyClauses" not in text and "automaton" not in text and "procedure" not in text, text[:300]
        assert "\n" not in text.strip()
    assert "too long or has too many words" in texts[5] and "too long or has too many words" in texts[6]
    assert elapsed < 60, "5,000 `about` entries were refused before any graph work"
    assert stderr.strip() == "", stderr[:500]


def test_a_huge_answer_is_cut_and_says_so(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    results, _, _ = run_session(graph_settings, [
        ("cypher", {"query": "RETURN [x IN range(1, 100000) | 'aaaaaaaaaa'] AS big"}),
        ("cypher", {"query": "RETURN 1 AS one"})])
    big, small = text_of(results[0]), text_of(results[1])
    assert not results[0].is_error
    assert len(big) < MAX_ANSWER + 300 and "(cut: the answer is" in big and f"at most {MAX_ANSWER:,}" in big
    assert "cut" not in small and "1" in small


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmRSS:")))


def test_a_line_without_end_is_answered_and_dropped_as_it_is_read(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    client = RawClient(graph_settings)
    before_kb = rss_kb(client.proc.pid)
    client.proc.stdin.write(call_line(7, "find", '{"text": "').encode())
    chunk = b"a" * 1_000_000
    for _ in range(200):  # 200 MB of one line: read and dropped a piece at a time, never held whole
        client.proc.stdin.write(chunk)
    client.proc.stdin.flush()  # the pipe holds 64 KB: by now kg mcp has read nearly all of it
    grown_kb = rss_kb(client.proc.pid) - before_kb
    client.proc.stdin.write(b'"}}}\n')
    client.proc.stdin.flush()
    answer = client.receive(60)
    client.send(call_line(8, "find", '{"text": "checkout"}'))
    after = client.receive(60)
    client.close()
    assert answer is not None and answer["id"] == 7
    assert f"at most {MAX_REQUEST_CHARS:,}" in answer["error"]["message"] and "200,0" in answer["error"]["message"]
    assert grown_kb < 60_000, f"kg mcp grew {grown_kb:,} KB while reading one line"
    assert after["id"] == 8 and "shop.cart.Cart.checkout" in after["result"]["content"][0]["text"]


def test_a_request_with_an_invalid_id_gets_an_error_with_a_null_id(store: Store, graph_settings: Settings) -> None:
    client = RawClient(graph_settings)
    for bad in ('{"a": 1}', "null", "1.5", "true", "[1]"):
        client.send('{"jsonrpc": "2.0", "id": ' + bad + ', "method": "tools/list"}')
        answer = client.receive(30)
        assert answer is not None, bad
        assert answer["id"] is None and answer["error"]["code"] == -32600, (bad, answer)
        assert "`id` must be a string or an integer" in answer["error"]["message"]
    client.send(json.dumps({"jsonrpc": "2.0", "id": "ok", "method": "tools/list"}))
    assert client.receive(30)["id"] == "ok"  # and it still serves
    client.close()
