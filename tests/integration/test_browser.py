"""Neo4j Browser as the impact tool, against the real server kg's launcher runs (it also serves Browser).

Every navigation query's own `:params` header answers on the bundled example (tinyshop, ingested under its own
name), with numbers as Browser's `:params` sends them (floats); the guide kg serves is built from the graph and each
of its blocks runs; the guide server answers the way Browser needs (CORS, preflight). When Chromium and playwright
are installed, the real Browser plays the guide, applies the style, draws the blast radius with confidence on the
edges and shows the tables, and a query file pasted whole is checked too; screenshots go to `.kg/shots/`.
"""

from __future__ import annotations

import re
import shutil
import socket
import urllib.request
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from kg.ingest.pipeline import Ingestor

from kg.navigate import browser, guide
from kg.navigate.catalog import catalog, describe, source
from kg.settings import Settings
from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
SHOTS = REPO_ROOT / ".kg" / "shots"
# tinyshop has no import cycle and, freshly ingested, no decisions and no observed test run (`kg observe`): an empty
# answer is the right one
NO_ROWS_ON_TINYSHOP = {"import_cycles", "module_decisions", "stale_decisions", "review/decisions", "tests_for_observed",
                       "tests_observed", "observed_runs",
                       "name_dispatch_sites",  # tinyshop has no getattr
                       "repo_unfinished",  # its ingest finished
                       "inherited_too_far"}  # no class of it has bases ten steps up


@pytest.fixture(scope="module")
def shop(session_store: Store) -> Store:
    session_store.write("graph_wipe")
    Ingestor(session_store, TINYSHOP).run()  # under its folder's name, `tinyshop`, as `make demo` does
    return session_store


def as_browser_sends(value: Any) -> Any:
    """Browser parses a `:params {...}` map itself, so every number arrives as a float."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [as_browser_sends(v) for v in value]
    if isinstance(value, dict):
        return {k: as_browser_sends(v) for k, v in value.items()}
    return value


def header_params(store: Store, line: str) -> dict[str, Any]:
    literal = line.strip().removeprefix(":params").strip().rstrip(";")
    return as_browser_sends(store.read_text(f"RETURN {literal} AS p")[0]["p"])


@pytest.mark.parametrize("name", [info.name for info in catalog()])
def test_each_query_answers_on_tinyshop_with_its_own_header(shop: Store, name: str) -> None:
    info = describe(name)
    rows = shop.read_text(info.body, **header_params(shop, info.params_line))
    if name in NO_ROWS_ON_TINYSHOP:
        assert rows == []
    else:
        assert rows, f"{name}'s :params header names nothing in tinyshop"


def guide_blocks(html: str) -> list[tuple[str, str]]:
    """(query name, text) of every runnable block; a `:params` block has no name."""
    return [(name, unescape(text)) for name, text in
            re.findall(r'<pre class="runnable"(?: data-query="([\w/]+)")?>(.*?)</pre>', html, re.DOTALL)]


def test_guide_is_built_from_the_graph_and_every_block_runs(shop: Store) -> None:
    html = guide.render(shop, None, "http://localhost:1")
    assert guide.summary(html)["slides"] == 8
    blocks = guide_blocks(html)
    params: dict[str, Any] = {}
    ran = {"graph": 0, "table": 0}
    for name, block in blocks:
        if not name:
            params = header_params(shop, block)
            assert params.get("repo", "tinyshop") == "tinyshop"
            continue
        rows = shop.read_text(block, **params)
        assert block == "\n".join(line for line in describe(name).body.splitlines()
                                 if not line.lstrip().startswith("//"))
        if name.endswith("_graph"):
            ran["graph"] += 1
            assert rows and all(isinstance(v, list) for r in rows for v in r.values()), "a graph block returns paths"
        else:
            ran["table"] += 1
    assert ran["graph"] == 5 and ran["table"] >= 10
    # The examples are symbols of the graph: the most-called function, reached by a test through a call chain
    # (constructing an OrderStore or a JsonOrderStore, whose __init__ calls super().__init__(), runs it).
    ex = guide.examples(shop, "tinyshop")
    assert ex.hub == "shop.storage.OrderStore.__init__" and ex.far_caller and ex.path_length >= 1
    assert f"{ex.hub}" in html and "data-exec=\"style http://localhost:1/kg.grass\"" in html


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_guide_server_answers_browser_across_origins(shop: Store) -> None:
    port = free_port()
    server = browser.start(shop, port, "http://127.0.0.1:7474/browser/?cmd=play")
    try:
        preflight = urllib.request.Request(f"http://localhost:{port}/guide.html", method="OPTIONS", headers={
            "Origin": "http://127.0.0.1:7474", "Access-Control-Request-Headers": "cache-control,pragma,sentry-trace"})
        with urllib.request.urlopen(preflight) as answer:
            assert answer.headers["Access-Control-Allow-Origin"] == "http://127.0.0.1:7474"
            assert "sentry-trace" in answer.headers["Access-Control-Allow-Headers"]
        for origin in ("http://127.0.0.1:7474", "http://localhost:7474"):  # Browser, under either name
            asked = urllib.request.Request(f"http://localhost:{port}/guide.html?repo=tinyshop",
                                           headers={"Origin": origin})
            with urllib.request.urlopen(asked) as answer:
                assert answer.headers["Access-Control-Allow-Origin"] == origin
                assert "<slide" in answer.read().decode()
        with urllib.request.urlopen(f"http://localhost:{port}/kg.grass") as answer:
            style = answer.read().decode()
        colours = dict(re.findall(r"node\.(\w+) \{[^}]*?color: (#[0-9A-F]{6})", style))
        kinds = ["Module", "Class", "Function", "Method", "Test", "ObservedTest", "Decision", "External"]
        assert len({colours[k] for k in kinds}) == len(kinds), "each kind of node has its own colour"
        assert 'relationship.CALLS {' in style and 'caption: "{confidence}"' in style
        with urllib.request.urlopen(f"http://localhost:{port}/guide.html?repo=nope") as answer:
            assert "no repository named 'nope'" in answer.read().decode()
    finally:
        server.shutdown()
        server.server_close()


def test_guide_server_escapes_what_it_echoes_and_answers_no_other_origin(shop: Store) -> None:
    """The attack report's reflected XSS (`?repo=<svg onload=…>`) and cross-origin read (any page, CORS `*`)."""
    port = free_port()
    server = browser.start(shop, port, "http://127.0.0.1:7474/browser/?cmd=play")
    try:
        payload = "%3Csvg%20onload%3Ddocument.title%3Dorigin%3E"
        with urllib.request.urlopen(f"http://localhost:{port}/guide.html?repo={payload}") as answer:
            page = answer.read().decode()
        assert "<svg" not in page and "&lt;svg onload=document.title=origin&gt;" in page
        for origin in ("http://evil.example", "http://127.0.0.1:17801", "null", "http://localhost:7475"):
            for method in ("GET", "OPTIONS"):
                asked = urllib.request.Request(f"http://localhost:{port}/guide.html?repo=tinyshop", method=method,
                                               headers={"Origin": origin, "Access-Control-Request-Headers": "x-a"})
                with urllib.request.urlopen(asked) as answer:
                    assert "Access-Control-Allow-Origin" not in answer.headers, (origin, method)
                    assert "Access-Control-Allow-Headers" not in answer.headers
    finally:
        server.shutdown()
        server.server_close()


# ── the real Browser ────────────────────────────────────────────────────────────────────────────────────────────

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LOCAL = ("http://127.0.0.1", "http://localhost", "ws://127.0.0.1", "ws://localhost", "data:", "blob:")


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    return sync_playwright


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
@pytest.mark.skipif(_playwright() is None, reason="playwright is not installed (pip install playwright)")
def test_real_browser_plays_the_guide_and_draws_the_blast_radius(shop: Store, graph_settings: Settings) -> None:
    if graph_settings.uri_configured:
        pytest.skip("the tests use a server kg did not start: its Browser is not on the test HTTP port")
    SHOTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = browser.browser_url(graph_settings.http_port, graph_settings.bolt_port, port, graph_settings.user)
    server = browser.start(shop, port, url)
    try:
        with _playwright()() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--no-first-run"])
            try:
                page = chromium.new_page(viewport={"width": 1500, "height": 1000})
                # Browser would also try guides.neo4j.com and its telemetry: nothing leaves this machine.
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort())
                try:
                    _walk_the_guide(page, url, graph_settings.password, shop)
                except Exception:
                    page.screenshot(path=SHOTS / "failed.png")  # what the Browser showed when a step failed
                    raise
            finally:
                chromium.close()
    finally:
        server.shutdown()
        server.server_close()


def _walk_the_guide(page: Any, url: str, password: str, store: Store) -> None:
    page.goto(url)
    _connect(page, password)
    guide_frame = page.locator("[data-testid=carousel]").first
    guide_frame.wait_for(timeout=30000)
    assert "Impact questions about tinyshop" in guide_frame.inner_text()
    page.screenshot(path=SHOTS / "01-guide.png")
    _type(page, ":config maxFrames: 100")  # Browser keeps 15 frames by default; the walk opens more

    page.locator("a[data-exec^='style']").first.click()
    page.wait_for_selector("text=node.Test", timeout=10000)  # the style frame lists kg's rules

    _next_slide(page)  # impact
    _run_block(page, 0)  # :params
    assert "Successfully set your parameters" in _top_frame(page).inner_text()
    graph = _run_block(page, 1)
    nodes = _wait_for_graph(graph)
    captions = [t.text_content().strip() for t in graph.locator("g.relationship text").all()]
    assert captions and all(re.fullmatch(r"[01](\.\d+)?", c) for c in captions), captions  # confidence on edges
    fills = {c.get_attribute("fill") for c in graph.locator("g.node circle").all()}
    assert {"#C990C0", "#8DCC93"} <= {f.upper() for f in fills if f}, fills  # methods purple, tests green
    page.screenshot(path=SHOTS / "02-impact-graph.png")
    assert nodes >= 3
    table = _run_block(page, 2)
    _wait_for_rows(table, "tests.test_cart.test_bulk_discount")
    page.screenshot(path=SHOTS / "03-impact-table.png")

    _next_slide(page)  # callers and callees
    _run_block(page, 0)
    _wait_for_graph(_run_block(page, 1))
    page.screenshot(path=SHOTS / "04-callers-graph.png")
    _wait_for_rows(_run_block(page, 2), "shop/")
    _run_block(page, 3)
    _wait_for_graph(_run_block(page, 4))
    page.screenshot(path=SHOTS / "05-callees-graph.png")

    _next_slide(page)  # path
    _run_block(page, 0)
    _wait_for_graph(_run_block(page, 1))
    page.screenshot(path=SHOTS / "06-path-graph.png")

    _next_slide(page)  # tests
    _run_block(page, 0)
    _wait_for_rows(_run_block(page, 1), "tests/test_cart.py::")
    page.screenshot(path=SHOTS / "07-tests-for.png")

    _next_slide(page)  # review: hotspots and dead code
    _run_block(page, 2)
    _wait_for_rows(_run_block(page, 3), "shop.")
    _run_block(page, 4)
    _wait_for_rows(_run_block(page, 5), "JsonOrderStore")
    page.screenshot(path=SHOTS / "08-dead-code.png")

    # A query file pasted whole: Browser runs it as a script, which sets the parameters but shows no rows; the
    # query run alone afterwards shows them. This is why the guide keeps the two apart.
    info = describe("impact")
    _type(page, source("impact"))
    script = _top_frame(page)
    script.locator("[data-testid=multi-statement-list]").wait_for(timeout=15000)
    page.wait_for_timeout(1500)
    statuses = script.locator("[data-testid=multi-statement-list-icon]").all()
    assert len(statuses) == 2 and all(s.get_attribute("title") == "Status: success" for s in statuses)
    page.screenshot(path=SHOTS / "09-file-pasted-whole.png")
    _type(page, info.body)
    _wait_for_rows(_top_frame(page), "shop.cart.Cart.checkout")
    page.screenshot(path=SHOTS / "10-file-body-alone.png")


def _connect(page: Any, password: str) -> None:
    """Log in on Browser's connect frame (the URL filled in the user and the Bolt address). Browser draws that
    frame again while it starts, which can swallow a password typed too early: try again until connected."""
    for _ in range(4):
        field = page.locator("[data-testid=password]").first
        field.wait_for(timeout=20000)
        page.wait_for_timeout(1500)
        field.fill(password)
        field.press("Enter")
        try:
            page.get_by_text("You are connected as user").first.wait_for(timeout=8000)
            return
        except Exception:  # noqa: BLE001 (playwright's TimeoutError): the frame was redrawn, type it again
            continue
    raise AssertionError("could not log in to Neo4j Browser")


def _top_frame(page: Any) -> Any:
    return page.locator("[data-testid=frame]").first


def _next_slide(page: Any) -> None:
    page.locator("[data-testid=carousel] .next-slide").first.click()
    page.wait_for_timeout(500)


def _run_block(page: Any, index: int) -> Any:
    """Click the ▶ of the index-th runnable block of the guide's current slide; the new frame it opens."""
    before = page.locator("[data-testid=frame]").count()
    page.locator("[data-testid=carousel] pre.runnable").nth(index).locator("i").first.click()
    _wait_for_new_frame(page, before)
    return _top_frame(page)


def _wait_for_graph(frame: Any) -> int:
    frame.locator("g.node").first.wait_for(timeout=20000)
    frame.page.wait_for_timeout(1500)  # the force layout settles
    return frame.locator("g.node").count()


def _wait_for_rows(frame: Any, text: str) -> None:
    frame.get_by_text(re.compile(re.escape(text))).first.wait_for(timeout=20000)


def _type(page: Any, text: str) -> None:
    before = page.locator("[data-testid=frame]").count()
    page.locator("#monaco-main-editor, [data-testid=activeEditor]").first.click()
    page.keyboard.insert_text(text)
    page.keyboard.press("Control+Enter")
    _wait_for_new_frame(page, before)


def _wait_for_new_frame(page: Any, before: int) -> None:
    """Browser's content security policy forbids evaluated scripts (wait_for_function): poll from here."""
    for _ in range(150):
        if page.locator("[data-testid=frame]").count() > before:
            return
        page.wait_for_timeout(100)
    raise AssertionError("Browser opened no new frame")
