"""The memory tools of `kg mcp` through a real MCP client session over stdio (`python -m kg mcp` against the test
graph with tinyshop ingested as `tinyshop`). No LLM: the calls are what an agent would send."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from kg.ingest.pipeline import Ingestor
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.memory import items
from kg.settings import Settings
from kg.store import Store
from tests.integration.test_mcp import text_of

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


def test_memory_tools_over_stdio(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="tinyshop").run()
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(TINYSHOP.parents[1]),
                                   env={"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password})
    calls = [
        ("record_decision", {"text": "Checkout never mutates the cart", "about": ["Cart.checkout"],
                             "why": "orders are replayed", "confidence": 0.9}),
        ("record_decision", {"text": "OrderStore keeps orders in insertion order", "about": ["OrderStore"],
                             "confidence": 0.3}),
        ("record_decision", {"text": "Checkout mutates the cart", "about": ["Cart.checkout"], "confidence": 0.95}),
        ("decisions", {"about": "shop/cart.py"}),
        ("memory", {"name": "Cart.checkout"}),
        ("record_decision", {"text": "x", "about": ["no.such.name"]}),
        ("record_decision", {"text": "  ", "about": ["Cart.checkout"]}),
        ("record_decision", {"text": "x", "about": ["Cart.checkout"], "confidence": 2}),
        ("record_decision", {"text": "x", "about": ["save"]}),
        ("decisions", {"status": "maybe"}),
    ]
    results = []

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"record_decision", "decisions", "memory"} <= names
            for name, args in calls:
                results.append(await client.call_tool(name, args))

    anyio.run(session)
    texts = [text_of(r) for r in results]
    assert not any(r.is_error for r in results[:5]), texts[:5]
    assert "(confirmed)" in texts[0] and "(proposed)" in texts[1]  # 0.3 is below the default threshold 0.8
    assert "(proposed)" in texts[2] and "flagged: contradiction of dec-" in texts[2]
    listing = texts[3].splitlines()
    assert listing[0].startswith("2 decisions about shop/cart.py")
    assert listing[1].startswith("- [conflict] dec-") and "Checkout never mutates the cart" in listing[1]
    assert listing[2].startswith("- [unverified] [conflict] dec-")
    assert "method shop.cart.Cart.checkout" in texts[4] and "summary: def checkout(" in texts[4]
    assert "[unverified] [conflict]" in texts[4]
    for result, fragment in zip(results[5:], ["no symbol or module named 'no.such.name'", "empty decision text",
                                              "confidence must be", "ambiguous", "status 'maybe'"], strict=True):
        assert result.is_error and fragment in text_of(result), text_of(result)
    found = items.load(store, "tinyshop")
    assert len(found) == 3 and {i.source for i in found} == {"mcp"}
    assert all(i.author.startswith("mcp (") for i in found)
