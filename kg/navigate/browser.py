"""`kg browser`: serve kg's Browser guide and style to Neo4j Browser from a small local web server.

Neo4j Browser fetches remote guides (`:play URL`) and styles (`:style URL`) only from hosts on the server's
allowlist, `browser.remote_content_hostname_allowlist`, which is `guides.neo4j.com,localhost` by default: so the
URLs say `localhost`, never `127.0.0.1`. Browser runs on another origin (the Neo4j HTTP port) and sends headers of
its own (`cache-control`, `pragma`, `sentry-trace`), so answers carry CORS headers, but only for Browser's own
origins (http://localhost:<http port> and http://127.0.0.1:<http port>): the guide lists the graph's repositories,
and any other web page open while `kg browser` runs must not read it. Every value put into a page is escaped.

    /            redirects to Neo4j Browser with the guide open (`?cmd=play&arg=<guide URL>`)
    /guide.html  the guide, built from the graph at each request (`?repo=NAME` for another repository)
    /kg.grass    the style
"""

from __future__ import annotations

import threading
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, quote, urlsplit

from kg.errors import InputError, KgError
from kg.navigate import guide
from kg.store import Store

GUIDE_HOST = "localhost"  # on Browser's default allowlist; 127.0.0.1 is not


def style() -> str:
    """kg's GraSS stylesheet for Browser: distinct colours per kind of node, confidence on the edges."""
    return resources.files("kg.navigate").joinpath("kg.grass").read_text(encoding="utf-8")


def browser_url(http_port: int, bolt_port: int, guide_port: int, user: str = "neo4j") -> str:
    """Neo4j Browser, connection filled in, opening kg's guide once connected."""
    guide_url = f"http://{GUIDE_HOST}:{guide_port}/guide.html"
    return (f"http://127.0.0.1:{http_port}/browser/?dbms={quote(f'bolt://{user}@127.0.0.1:{bolt_port}', safe='')}"
            f"&cmd=play&arg={quote(guide_url, safe='')}")


def browser_origins(browser: str) -> set[str]:
    """The origins allowed to read the guide: Browser's, under both names of the loopback host."""
    url = urlsplit(browser)
    if not url.port:
        return set()
    return {f"{url.scheme}://{host}:{url.port}" for host in ("localhost", "127.0.0.1")}


class GuideServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, store: Store, port: int, browser: str) -> None:
        self.store = store
        self.browser = browser
        self.origins = browser_origins(browser)
        self.base_url = f"http://{GUIDE_HOST}:{port}"
        super().__init__(("127.0.0.1", port), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: GuideServer

    def do_OPTIONS(self) -> None:  # noqa: N802 (http.server's naming)
        self._answer(HTTPStatus.NO_CONTENT, b"", "text/plain")

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html"):
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", self.server.browser)
            self._cors()
            self.end_headers()
            return
        if url.path == "/kg.grass":
            self._answer(HTTPStatus.OK, style().encode(), "text/plain; charset=utf-8")
            return
        if url.path == "/guide.html":
            repo = parse_qs(url.query).get("repo", [None])[0]
            try:
                page = guide.render(self.server.store, repo, self.server.base_url)
                status = HTTPStatus.OK
            except KgError as e:  # an unknown repo or a graph that went away: say so on the page
                page = (f"<article><slide><h3>kg could not build the guide</h3><p>{escape(str(e), quote=False)}</p>"
                        "</slide></article>")
                status = HTTPStatus.OK
            self._answer(status, page.encode(), "text/html; charset=utf-8")
            return
        self._answer(HTTPStatus.NOT_FOUND, b"not found: try /guide.html or /kg.grass\n", "text/plain")

    def _answer(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self._cors()
        self.end_headers()
        self.wfile.write(body)

    def _cors(self) -> None:
        origin = self.headers.get("Origin")
        if origin not in self.server.origins:  # no CORS headers: a page of any other origin cannot read the answer
            return
        self.send_header("Access-Control-Allow-Origin", origin)
        self.send_header("Vary", "Origin")
        self.send_header("Access-Control-Allow-Methods", "GET, OPTIONS")
        # Browser adds its own headers (cache-control, pragma, sentry-trace...): allow whatever the preflight names.
        asked = self.headers.get("Access-Control-Request-Headers")
        self.send_header("Access-Control-Allow-Headers", asked or "cache-control, pragma, content-type")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # a person watching `kg browser` wants the URL, not an access log


def start(store: Store, port: int, browser: str) -> GuideServer:
    """Serve the guide and style on localhost:`port` from a background thread; `shutdown()` stops it."""
    try:
        server = GuideServer(store, port, browser)
    except OSError as e:
        raise InputError(f"cannot serve the guide on port {port}: {e.strerror or e}: pick another with --port") from e
    threading.Thread(target=server.serve_forever, name="kg-guide", daemon=True).start()
    return server
