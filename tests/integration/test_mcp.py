"""`kg mcp` with a real MCP client session: the client launches `python -m kg mcp` over stdio against the test
graph (tinyshop ingested), lists the tools and calls them as an agent would."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from kg.ingest.pipeline import Ingestor
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.navigate.mcp_server import tool_names
from kg.settings import Settings
from kg.store import Store

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


def text_of(result) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None))


def test_mcp_session_lists_and_calls_tools(store: Store, graph_settings: Settings) -> None:
    Ingestor(store, TINYSHOP, repo="shop").run()
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(TINYSHOP.parents[1]),
                                   env={"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password})
    results: dict[str, object] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            results["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
            for name, args in {
                "find": {"text": "checkout"},
                "callers": {"symbol": "Cart.checkout"},
                "impact": {"symbols": ["shop.pricing.bulk_discount"], "limit": 2},
                "tests_for": {"symbols": ["bulk_discount"]},
                "path": {"source": "test_bulk_discount", "target": "Order.subtotal_cents"},
                "module_summary": {"module": "shop/cart.py"},
                "cypher": {"query": "MATCH (s:Symbol {repo: $repo}) RETURN count(s) AS n",
                           "params": '{"repo": "shop"}'},
                "cypher_write": {"query": "CREATE (:Intruder) RETURN 1 AS one"},
                "ambiguous": {"symbol": "save"},
            }.items():
                tool = name.split("_write")[0] if name.endswith("_write") else name
                tool = "callers" if name == "ambiguous" else tool
                results[name] = await client.call_tool(tool, args)

    anyio.run(session)

    assert results["tools"] == sorted(tool_names())
    assert "shop.cart.Cart.checkout" in text_of(results["find"])
    callers = text_of(results["callers"])
    assert callers.startswith("callers of shop.cart.Cart.checkout (depth ≤ 1): 2 callers")
    assert "tests.test_cart.test_bulk_discount" in callers
    impact = text_of(results["impact"])
    # shop.cart, apply_discounts (which calls it), Cart.checkout and two tests
    assert "showing 2 of 5 dependents" in impact and len(impact.splitlines()) == 4  # header, columns, 2 rows
    assert "tests/test_cart.py::test_bulk_discount" in text_of(results["tests_for"])
    assert "shop.models.Order.total_cents" in text_of(results["path"])
    summary = text_of(results["module_summary"])
    assert summary.startswith("module shop.cart (shop/cart.py") and "imported_by" in summary
    assert text_of(results["cypher"]).splitlines()[-1] == "25"
    assert results["cypher_write"].is_error and "refused" in text_of(results["cypher_write"])
    assert results["ambiguous"].is_error and "ambiguous" in text_of(results["ambiguous"])
    assert store.read_text("MATCH (n:Intruder) RETURN count(n) AS n")[0]["n"] == 0
