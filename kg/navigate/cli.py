"""The navigation commands, plugged into `kg` through the `kg.commands` entry points: thin wrappers that parse
options, call kg.navigate's library functions and print a rich table or JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from kg.cli import Context, emit_json, json_option, out, pass_context
from kg.errors import InputError, shorten
from kg.navigate import answers
from kg.navigate.evidence import EVIDENCE, SURE, pytest_ids
from kg.navigate.render import table
from kg.render import echo, inline

repo_option = click.option("--repo", help="Repository to look in when several are ingested.")


def limit_option(default: int, what: str = "Rows") -> Any:
    """--limit: `default` rows in a table (which says what it cut); --json and --pytest print every row unless a
    limit is given explicitly."""
    return click.option("--limit", type=click.IntRange(1), default=None, metavar="N",
                        help=f"{what} to show (default {default} in a table; --json/--pytest print all unless given).")


def cut(limit: int | None, default: int, machine: bool) -> int | None:
    """The limit to apply: the one asked for, else none for machine output, else the table's default."""
    return limit if limit is not None else (None if machine else default)


edges_option = click.option("--evidence", type=click.Choice(answers.EDGE_EVIDENCE), default="all", show_default=True,
                             help="Follow static CALLS (ingest), observed ones (kg observe) or both.")
tests_evidence_option = click.option(
    "--evidence", type=click.Choice(EVIDENCE), default="combined", show_default=True,
    help="combined: observed tests plus static ones no fresh observation contradicts; static/observed: one side; "
         "any: either.")
confidence_option = click.option("--min-confidence", default=0.0, show_default=True, type=click.FloatRange(0, 1),
                                 help="Ignore edges kg is less sure of than this.")


def depth_option(default: int) -> Any:
    return click.option("--depth", default=default, show_default=True, type=click.IntRange(1, answers.MAX_DEPTH),
                        help=f"How many steps to follow (at most {answers.MAX_DEPTH}).")


def show(answer: answers.Answer, as_json: bool) -> None:
    if as_json:
        emit_json(answer.to_dict())
    else:
        out.print(table(answer, out.width))


@click.command()
@click.argument("symbol")
@depth_option(1)
@confidence_option
@edges_option
@repo_option
@limit_option(50)
@json_option
@pass_context
def callers(ctx: Context, symbol: str, depth: int, min_confidence: float, evidence: str, repo: str | None,
            limit: int | None, as_json: bool) -> None:
    """Who calls SYMBOL (dotted name, unique suffix such as Cart.checkout, or path:line)."""
    with ctx.open_reader() as store:
        show(answers.callers(store, symbol, repo, depth, min_confidence, cut(limit, 50, as_json), evidence), as_json)


@click.command()
@click.argument("symbol")
@depth_option(1)
@confidence_option
@edges_option
@repo_option
@limit_option(50)
@json_option
@pass_context
def callees(ctx: Context, symbol: str, depth: int, min_confidence: float, evidence: str, repo: str | None,
            limit: int | None, as_json: bool) -> None:
    """What SYMBOL calls, directly or (with --depth) transitively."""
    with ctx.open_reader() as store:
        show(answers.callees(store, symbol, repo, depth, min_confidence, cut(limit, 50, as_json), evidence), as_json)


@click.command()
@click.argument("symbols", nargs=-1, required=True)
@depth_option(5)
@confidence_option
@edges_option
@repo_option
@limit_option(50)
@json_option
@pass_context
def impact(ctx: Context, symbols: tuple[str, ...], depth: int, min_confidence: float, evidence: str,
           repo: str | None, limit: int | None, as_json: bool) -> None:
    """What may break if SYMBOLS (symbols, modules or files) change: callers, importers, subclasses by depth."""
    with ctx.open_reader() as store:
        show(answers.impact(store, list(symbols), repo, depth, min_confidence, cut(limit, 50, as_json), evidence),
             as_json)


@click.command()
@click.argument("source")
@click.argument("target")
@depth_option(6)
@edges_option
@repo_option
@limit_option(3, "Paths")
@json_option
@pass_context
def path(ctx: Context, source: str, target: str, depth: int, evidence: str, repo: str | None, limit: int | None,
         as_json: bool) -> None:
    """The shortest call paths from SOURCE to TARGET."""
    with ctx.open_reader() as store:
        show(answers.call_path(store, source, target, repo, depth, cut(limit, 3, as_json), evidence), as_json)


@click.command("tests-for")
@click.argument("symbols", nargs=-1, required=True)
@depth_option(8)
@tests_evidence_option
@repo_option
@limit_option(50, "Tests")
@click.option("--pytest", "as_pytest", is_flag=True, help="Print only the pytest node ids, one per line (all of them).")
@json_option
@pass_context
def tests_for(ctx: Context, symbols: tuple[str, ...], depth: int, evidence: str, repo: str | None, limit: int | None,
              as_pytest: bool, as_json: bool) -> None:
    """The tests that exercise SYMBOLS: reached by static analysis (calls, fixtures, test-module code), seen running
    them by `kg observe`, or both; each row says which."""
    with ctx.open_reader() as store:
        answer = answers.tests_for(store, list(symbols), repo, depth, cut(limit, 50, as_json or as_pytest), evidence)
    if as_pytest:
        ids = pytest_ids(answer.rows)
        if ids:
            echo("\n".join(inline(i) for i in ids))
        else:  # stdout stays empty for `pytest $(kg tests-for …)`; a person still learns why nothing came
            click.echo(f"no test reaches {shorten(', '.join(symbols))} ({evidence} evidence, depth ≤ {depth}): "
                       "`kg tests-for` without --pytest says more", err=True)
    else:
        show(answer, as_json)


@click.command()
@repo_option
@click.option("--max-length", default=4, show_default=True, type=click.IntRange(2, 8), help="Longest cycle.")
@limit_option(50)
@json_option
@pass_context
def cycles(ctx: Context, repo: str | None, max_length: int, limit: int | None, as_json: bool) -> None:
    """Import cycles between modules."""
    with ctx.open_reader() as store:
        show(answers.cycles(store, repo, max_length, cut(limit, 50, as_json)), as_json)


@click.command("dead-code")
@repo_option
@click.option("--maybe", "include_maybe", is_flag=True, help="Also list symbols that may be alive.")
@click.option("--public", "include_public", is_flag=True,
              help="Also list public API of the packages that nothing inside the project uses.")
@limit_option(50)
@json_option
@pass_context
def dead_code(ctx: Context, repo: str | None, include_maybe: bool, include_public: bool, limit: int | None,
              as_json: bool) -> None:
    """Functions, methods and classes nothing uses, each with why and how sure (entry points, properties, public
    API and dynamic uses taken into account)."""
    with ctx.open_reader() as store:
        show(answers.dead_code(store, repo, include_maybe, include_public, cut(limit, 50, as_json)), as_json)


@click.command()
@repo_option
@limit_option(25)
@json_option
@pass_context
def hotspots(ctx: Context, repo: str | None, limit: int | None, as_json: bool) -> None:
    """Symbols with the highest fan-in + fan-out."""
    with ctx.open_reader() as store:
        show(answers.hotspots(store, repo, cut(limit, 25, as_json)), as_json)


@click.command()
@click.argument("text")
@repo_option
@limit_option(20)
@json_option
@pass_context
def find(ctx: Context, text: str, repo: str | None, limit: int | None, as_json: bool) -> None:
    """Where TEXT is defined: exact dotted names first, then fuzzy full-text matches."""
    with ctx.open_reader() as store:
        show(answers.find(store, text, repo, cut(limit, 20, as_json)), as_json)


def parse_param(pair: str) -> tuple[str, Any]:
    """`k=v`: v as JSON when it parses (numbers, true, null, lists, "quoted"), else as a plain string."""
    key, sep, raw = pair.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--param {pair!r}: write it as name=value")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    except RecursionError as e:  # Python's parser gives up about a thousand levels deep
        raise InputError(f"--param {key.strip()[:40]}: the value nests too deep; give a flatter JSON value") from e
    return key.strip(), value


@click.command()
@click.argument("name", required=False)
@click.option("--param", "params", multiple=True, metavar="K=V", help="A query parameter (repeatable).")
@click.option("--list", "list_queries", is_flag=True, help="List the named queries.")
@click.option("--all", "include_internal", is_flag=True, help="With --list: also ingest/export/schema queries.")
@limit_option(50)
@json_option
@pass_context
def query(ctx: Context, name: str | None, params: tuple[str, ...], list_queries: bool, include_internal: bool,
          limit: int | None, as_json: bool) -> None:
    """Run the named query NAME (a file in queries/) read-only, e.g. kg query callers --param repo=shop ..."""
    if list_queries or not name:
        from kg.navigate.catalog import catalog

        infos = catalog(include_internal)
        if as_json:
            return emit_json([{"name": i.name, "summary": i.summary, "params": list(i.used)} for i in infos])
        from rich.table import Table

        t = Table(show_edge=False)
        for column in ("query", "parameters", "answers"):
            t.add_column(column, overflow="fold")
        for i in infos:
            t.add_row(i.name, ", ".join(i.used), Text(i.first_line))
        out.print(t)
        return None
    values = dict(parse_param(p) for p in params)
    with ctx.open_reader() as store:
        show(answers.run_query(store, name, values, cut(limit, 50, as_json)), as_json)


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--since", help="Compare the working tree with this revision (default HEAD).")
@click.option("--staged", is_flag=True, help="Only what is staged (the next commit).")
@repo_option
@depth_option(5)
@click.option("--test-depth", default=8, show_default=True, type=click.IntRange(1, answers.MAX_DEPTH),
              help="How far a test may be from a changed symbol.")
@tests_evidence_option
@limit_option(200, "Rows per section")
@click.option("--pytest", "as_pytest", is_flag=True, help="Print only the tests to run, one node id per line (all).")
@json_option
@pass_context
def changes(ctx: Context, path: Path | None, since: str | None, staged: bool, repo: str | None, depth: int,
            test_depth: int, evidence: str, limit: int | None, as_pytest: bool, as_json: bool) -> None:
    """The symbols a git diff touches, what they impact and the tests to run (static and observed evidence)."""
    if since and staged:
        raise InputError("--since and --staged do not go together: pick one")
    from kg.navigate.changes import changes as changes_of  # git and subprocess: only this command needs them

    with ctx.open_reader() as store:
        report = changes_of(store, path, repo, since, staged, depth, test_depth,
                            cut(limit, 200, as_json or as_pytest), evidence=evidence)
    if as_json:
        return emit_json(report.to_dict())
    if report.warning():  # on stderr: `--pytest` output stays one test id per line
        click.echo(inline(f"warning: {report.warning()}"), err=True)
    if as_pytest:
        if report.pytest_args():
            echo("\n".join(inline(a) for a in report.pytest_args()))
        else:  # stdout stays empty; a person still learns why (`pytest $(kg changes --pytest)` would run them all)
            click.echo(f"no test reaches what the diff changes in {report.repo} ({len(report.changed)} changed "
                       "symbols): `kg changes` without --pytest says more", err=True)
        return None
    if not report.changed:
        out.print(Text(inline(f"no changed code in {report.repo} ({report.root})")))
        return None
    from rich.table import Table

    t = Table(title=f"changed in {report.repo}", show_edge=False, title_justify="left")
    for column in ("symbol", "kind", "lines"):
        t.add_column(column)
    for row in report.changed:
        t.add_row(Text(inline(row["qname"])), row["kind"], Text(inline(f"{row['path']}:{row['lines']}")))
    out.print(t)
    out.print(table(report.impact, out.width))
    out.print(table(report.tests, out.width))
    if report.tests.rows:
        sure, maybe = report.pytest_args(guesses=False), report.guessed_args()
        if sure:
            out.print(Text(inline(f"run: pytest {' '.join(sure)}"), style="bold"), soft_wrap=True)
        if maybe:  # listed above; a run line of guesses hides the tests that matter (newuser5 #7)
            out.print(Text(f"{'+' if sure else 'no test surely reaches the change; '}{len(maybe):,} test(s) reaching "
                           f"it only through a guessed call (confidence below {SURE}): listed above; `kg changes "
                           "--pytest` prints them too", style="dim"))
        if report.tests.truncated:
            out.print(Text(f"(the {len(report.tests.rows)} tests shown; `kg changes --pytest` prints all "
                           f"{report.tests.total})", style="dim"))
    return None


@click.command()
@pass_context
def mcp(ctx: Context) -> None:
    """Serve kg's navigation tools to an agent over MCP (stdio)."""
    from kg.navigate.mcp_server import serve

    serve(ctx.settings)


@click.command()
@click.option("--port", type=click.IntRange(1, 65535),
              help="Port of the guide's small web server (default: the Neo4j HTTP port + 2, e.g. 7476).")
@click.option("--open", "open_browser", is_flag=True, help="Also open Neo4j Browser in your web browser.")
@json_option
@pass_context
def browser(ctx: Context, port: int | None, open_browser: bool, as_json: bool) -> None:
    """Open Neo4j Browser with kg's guide (impact, callers, path, tests, review) and style, until Ctrl-C."""
    from kg.navigate import browser as guide_server
    from kg.navigate.guide import render, summary

    s = ctx.settings
    port = port or s.http_port + 2
    with ctx.open_graph() as store:
        # kg's own server serves Browser on its HTTP port; another server's Browser is wherever that server is.
        url = None if s.uri_configured else guide_server.browser_url(s.http_port, s.bolt_port, port, s.user)
        server = guide_server.start(store, port, url or f"http://localhost:{port}/guide.html")
        try:
            guide_url = f"{server.base_url}/guide.html"
            info = {"browser": url, "guide": guide_url, "style": f"{server.base_url}/kg.grass", "user": s.user,
                    **summary(render(store, None, server.base_url))}
            if as_json:
                emit_json(info)
            elif url:
                out.print(f"[bold]Neo4j Browser with kg's guide:[/] {url}", highlight=False, soft_wrap=True)
                out.print(f"log in as [bold]{s.user}[/] with the password in the file {s.data_dir / 'password'}; the "
                          f"guide's first slide applies kg's style. In Browser, `:play {guide_url}` opens it again.",
                          highlight=False)
            else:
                out.print(f"in the Neo4j Browser of {s.uri}, run [bold]:play {guide_url}[/] (the server's "
                          "browser.remote_content_hostname_allowlist must include localhost, as by default)",
                          highlight=False, soft_wrap=True)
            if not as_json:
                out.print(f"[dim]serving the guide ({info['slides']} slides, {info['blocks']} runnable blocks, "
                          f"rebuilt from the graph at each load) until Ctrl-C[/]", highlight=False)
            if open_browser and url:
                import webbrowser

                webbrowser.open(url)
            import threading

            threading.Event().wait()  # the server answers from its own thread until Ctrl-C
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
