"""The `kg` command. Commands are thin: they build Settings, call library functions and render the result.

Expected failures (kg.errors) end in one line on stderr and exit code 1; anything else is a bug and keeps its trace.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from kg import installed, queries
from kg import settings as settings_module
from kg.errors import InputError, KgError
from kg.render import echo, guarded
from kg.settings import Settings

if TYPE_CHECKING:
    from kg.query_api import QueryApiReader, QueryApiStore
    from kg.server import local
    from kg.store import Store

# A one-shot command pays for every import before it answers (`kg callers` is ~0.2 s, mostly start-up), so what
# only some commands need (the neo4j driver, the server launcher, entry-point metadata, rich tables) is imported
# where it is used.

# Without a terminal (make, a pipe, a CI log) rich assumes 80 columns and folds every table; a log has room.
PIPE_WIDTH = 160
# Both show text from the graph: guarded, so what it holds is shown, never obeyed by the terminal (kg.render).
out = guarded(Console(soft_wrap=True, width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else PIPE_WIDTH))
err = guarded(Console(stderr=True, soft_wrap=True,
                      width=None if sys.stderr.isatty() or os.environ.get("COLUMNS") else PIPE_WIDTH))


class KgGroup(click.Group):
    """The top-level group: translates kg's expected errors into one line and a non-zero exit, and adds the
    commands other packages declare under the `kg.commands` entry point (ingest, agent, ...), loaded only when
    used, so `kg` itself never imports them (imports flow agent → ingest → kg)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from importlib.metadata import entry_points

        plugged = {ep.name for ep in entry_points(group="kg.commands") if _loadable(ep.value)}
        return sorted({*super().list_commands(ctx), *plugged})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None:
            target = _own_commands().get(name)
            if target is None:  # another distribution's command
                from importlib.metadata import entry_points

                found = entry_points(group="kg.commands", name=name)
                target = next(iter(found)).value if found else None
            if target and _loadable(target):
                module, _, attr = target.partition(":")
                command = getattr(importlib.import_module(module), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KgError, queries.QueryNotFound) as e:
            err.print(Text.assemble(("error:", "bold red"), f" {e}"), highlight=False, soft_wrap=True)
            sys.exit(1)


@cache
def _own_commands() -> dict[str, str]:
    """kg's own `kg.commands` entry points (name → "module:attr"), read straight from its installed metadata
    (kg.installed). Empty when kg's metadata is not a `kg-*.dist-info` folder on sys.path, and then every name goes
    through importlib.metadata."""
    folder = installed.dist_info("kg")
    return _section(os.path.join(folder, "entry_points.txt"), "kg.commands") if folder else {}


def _section(path: str, wanted: str) -> dict[str, str]:
    """`name = value` lines of one section of an entry_points.txt (the INI subset pip writes; configparser would
    cost every command an import)."""
    found: dict[str, str] = {}
    section = None
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in map(str.strip, lines):
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == wanted and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            found[name.strip()] = value.strip()
    return found


def _loadable(target: str) -> bool:
    """Whether an entry point's module exists (a command of a package not installed is simply not offered)."""
    module = target.split(":", 1)[0]
    try:
        return find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class Context:
    """Settings are read on first use, so `kg --help` works even with a broken project file."""

    def __init__(self, overrides: dict[str, Any]) -> None:
        self._overrides = overrides
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = settings_module.load(self._overrides)
            if self._settings.ignored_note:
                err.print(f"[yellow]note:[/] {self._settings.ignored_note}", highlight=False, soft_wrap=True)
        return self._settings

    def open_graph(self) -> Store:
        from kg.graph import open_graph

        return open_graph(self.settings, on_start=lambda msg: err.print(f"[dim]{msg}[/]"))

    def open_writer(self) -> QueryApiStore | Store:
        """The graph for a one-shot command that writes a little (see kg.graph.open_writer)."""
        from kg.graph import open_writer

        return open_writer(self.settings, on_start=lambda msg: err.print(f"[dim]{msg}[/]"))

    def open_reader(self) -> QueryApiReader | Store:
        """The graph for a command that only runs named reads (see kg.graph.open_reader)."""
        from kg.graph import open_reader

        return open_reader(self.settings, on_start=lambda msg: err.print(f"[dim]{msg}[/]"))


pass_context = click.make_pass_decorator(Context)
json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


@click.group(cls=KgGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--uri", help="Neo4j URI (env NEO4J_URI); default: kg's local server.")
@click.option("--database", help="Neo4j database (env NEO4J_DATABASE).")
@click.option("--data-dir", help="Local server data folder (env KG_DATA_DIR); default: one per user, "
                                 "~/.local/share/kg/neo4j.")
@click.version_option(package_name="kg")
@click.pass_context
def cli(ctx: click.Context, uri: str | None, database: str | None, data_dir: str | None) -> None:
    """kg: a code knowledge graph on Neo4j for coding agents and code review."""
    ctx.obj = Context({"uri": uri, "database": database, "data_dir": data_dir})


# ── server ──────────────────────────────────────────────────────────────────────────────────────────────────────


@cli.group()
def server() -> None:
    """Run kg's local Neo4j (no Docker needed)."""


@server.command("start")
@json_option
@pass_context
def server_start(ctx: Context, as_json: bool) -> None:
    """Start the local Neo4j (builds it on first use) and wait until its database is online."""

    from kg.server import local

    status = local.start(ctx.settings, on_build=None if as_json else lambda msg: err.print(f"[dim]{msg}…[/]"))
    _print_started(ctx, status, as_json)


@server.command("restart")
@json_option
@pass_context
def server_restart(ctx: Context, as_json: bool) -> None:
    """Stop the local Neo4j if it runs, then start it (e.g. after freeing disk space)."""

    from kg.server import local

    status = local.restart(ctx.settings, on_build=None if as_json else lambda msg: err.print(f"[dim]{msg}…[/]"))
    _print_started(ctx, status, as_json)


def _print_started(ctx: Context, status: local.ServerStatus, as_json: bool) -> None:
    if as_json:
        return emit_json(status.to_dict())
    verb = "already running" if status.already_running else f"started in {status.seconds} s"
    out.print(f"[green]Neo4j {status.neo4j_version or ''} {verb}[/] (pid {status.pid}) · {status.uri} · "
              f"database {status.database.name if status.database else 'neo4j'} online · data {status.data_dir}",
              highlight=False)
    out.print(f"Browser: {status.browser_url}  user [bold]neo4j[/], password in "
              f"{ctx.settings.data_dir / 'password'} (or $NEO4J_PASSWORD)", highlight=False)


@server.command("stop")
@json_option
@pass_context
def server_stop(ctx: Context, as_json: bool) -> None:
    """Stop the local Neo4j cleanly."""
    from kg.server import local

    stopped = local.stop(ctx.settings)
    if as_json:
        return emit_json({"stopped": stopped, "data_dir": str(ctx.settings.data_dir)})
    out.print(f"Neo4j stopped · data {ctx.settings.data_dir}" if stopped
              else f"Neo4j was not running · data {ctx.settings.data_dir}", highlight=False)


@server.command("status")
@json_option
@pass_context
def server_status(ctx: Context, as_json: bool) -> None:
    """Which server runs (pid, ports, data folder, since when, versions) and how its database is, as Neo4j says.

    Exit code 0: running with its database online; 3: not running; 4: running, but the database is not online."""

    from kg.server import local

    status = local.status(ctx.settings)
    code = 0 if status.online else 4 if status.running else 3
    if as_json:
        emit_json(status.to_dict())
        sys.exit(code)
    db = status.database
    if status.running and db is not None:
        if db.online:
            health = f"[green]database {db.name} online[/]" + (
                f" [yellow]read-only[/]{': ' + db.message if db.message else ''}" if db.access == "read-only" else "")
        else:
            health = f"[red]database {db.name} {db.status}[/]" + (f": {db.message}" if db.message else "")
        out.print(f"[green]running[/] (pid {status.pid}) · {health}", highlight=False)
        out.print(f"  bolt {status.bolt_port} · http {status.http_port} · {status.browser_url}", highlight=False)
        out.print(f"  data {status.data_dir} · since {status.started_at} · Neo4j {status.neo4j_version} · "
                  f"kg {status.kg_version}", highlight=False)
        if status.heap:
            out.print(f"  heap {status.heap} · page cache {status.pagecache}", highlight=False)
    else:
        out.print(f"[yellow]not running[/] · data {status.data_dir} · start it with `kg server start`",
                  highlight=False)
        if status.last_error:
            what = "it stopped unexpectedly" if status.stopped_unexpectedly else "the last start failed"
            out.print(f"  {what}: {status.last_error}", highlight=False)
    for other in status.others:
        out.print(f"  also running: kg server for {other['data_dir']} (pid {other['pid']}, bolt "
                  f"{other['bolt_port']}): use it with --data-dir {other['data_dir']}", highlight=False)
    sys.exit(code)


@server.command("logs")
@click.option("-n", "--lines", default=40, show_default=True, help="Lines from the end of each log.")
@json_option
@pass_context
def server_logs(ctx: Context, lines: int, as_json: bool) -> None:
    """Show the end of the local server's logs."""

    from kg.server import local

    tails = local.logs(ctx.settings, lines)
    if as_json:
        return emit_json({"data_dir": str(ctx.settings.data_dir), "logs": tails})
    echo("\n\n".join(f"==> {path} <==\n" + "\n".join(tail) for path, tail in tails.items())
               or f"no logs yet in {ctx.settings.data_dir}")


# ── graph ───────────────────────────────────────────────────────────────────────────────────────────────────────


@cli.command()
@json_option
@pass_context
def init(ctx: Context, as_json: bool) -> None:
    """Create the graph's constraints and indexes (idempotent)."""
    with ctx.open_graph() as store:
        count = store.apply_schema()
    if as_json:
        return emit_json({"schema_statements": count, "uri": ctx.settings.uri})
    out.print(f"schema ready: {count} constraints and indexes on {ctx.settings.uri}", highlight=False)


@cli.command()
@click.option("--repo", help="Count only this repository's nodes and the relationships leaving them (default: the "
                             "repository the current folder is in).")
@click.option("--all", "whole", is_flag=True, help="Count the whole graph, every repository, even from inside one.")
@json_option
@pass_context
def status(ctx: Context, repo: str | None, whole: bool, as_json: bool) -> None:
    """What the graph holds of the current folder's repository (or --repo's): nodes by label and relationships by
    type; the whole graph with --all, or from a folder in no ingested repository."""
    from kg.navigate.targets import pick_repo, place
    from kg.unfinished import unfinished_notes

    if repo and whole:
        raise InputError("--repo and --all ask for different counts: give one of them")
    notes: list[str] = []
    with ctx.open_reader() as store:
        repos = store.read("repos")
        if repo is None and not whole:
            here = place(repos)
            if isinstance(here, dict):
                repo = here["repo"]
            elif repos:  # what the folder lacks, then what the graph holds
                notes.append(f"{here}: these are the whole graph's counts")
        if repo is None:
            nodes = store.read("graph_node_counts")
            edges = store.read("graph_edge_counts")
        else:
            pick_repo(store, repo)  # an unknown name is an error, not an empty table
            nodes = store.read("repo_node_counts", repo=repo)
            edges = store.read("repo_edge_counts", repo=repo)
            notes += unfinished_notes(store, repo)
    listed = [{"repo": r["repo"], "root": r["root"], "modules": r["modules"], "unfinished": r["writing"] is not None}
              for r in repos]
    if as_json:
        return emit_json({"uri": ctx.settings.uri, "repo": repo, "nodes": nodes, "relationships": edges,
                          "notes": notes, "repositories": listed})
    from rich.table import Table

    where = f"repository {repo} in the graph" if repo else "graph"
    table = Table(title=f"{where} at {ctx.settings.uri}", show_edge=False)
    table.add_column("nodes")
    table.add_column("count", justify="right")
    for row in nodes:
        table.add_row(row["label"], f"{row['count']:,}")
    for row in edges:
        table.add_row(f"-[:{row['type']}]->", f"{row['count']:,}")
    if not nodes:
        table.add_row("(empty)", "0")
    out.print(table)
    if repo is None and listed:
        shown = ", ".join(f"{r['repo']} ({r['modules']:,} modules{', unfinished' if r['unfinished'] else ''})"
                          for r in listed[:10])
        out.print(f"repositories: {shown}" + (f" and {len(listed) - 10} more" if len(listed) > 10 else ""),
                  highlight=False)
    elif repo is not None and len(listed) > 1:
        out.print(f"[dim]the graph holds {len(listed)} repositories: `kg status --all` counts them all[/]",
                  highlight=False)
    for note in notes:
        out.print(f"[yellow]note:[/] {note}", highlight=False)


@cli.command()
@json_option
@pass_context
def config(ctx: Context, as_json: bool) -> None:
    """Show the connection settings and where each came from (never the password)."""
    s = ctx.settings
    rows = {
        "project": (str(s.project), "cwd"),
        "uri": (s.uri, s.origin["uri"] if s.uri_configured else "default (kg's local server)"),
        "user": (s.user, s.origin["user"]),
        "database": (s.database, s.origin["database"]),
        "data_dir": (str(s.data_dir), s.origin["data_dir"] if s.origin["data_dir"] != "default"
                     else "default (one server per user)"),
        "bolt_port": (str(s.bolt_port), s.origin["bolt_port"]),
        "http_port": (str(s.http_port), s.origin["http_port"]),
        "heap": (s.heap, s.origin["heap"]),
        "pagecache": (s.pagecache, s.origin["pagecache"]),
        "min_free_mb": (str(s.min_free_mb), s.origin["min_free_mb"]),
    }
    from kg.server import state

    running = {} if s.uri_configured else state.running(s.data_dir) or {}
    differs = [f"{key} {running[key]}" for key in ("heap", "pagecache") if running.get(key, getattr(s, key)) !=
               getattr(s, key)]
    note = (f"the server running for {s.data_dir} was started with {' and '.join(differs)}: these settings take "
            "effect at its next start (`kg server stop`, then `kg server start`)") if differs else None
    if as_json:
        return emit_json({**{k: {"value": v, "from": o} for k, (v, o) in rows.items()}, "note": note})
    from rich.table import Table

    table = Table(show_edge=False)
    for column in ("setting", "value", "from"):
        table.add_column(column)
    for key, (value, origin) in rows.items():
        table.add_row(key, value, origin)
    out.print(table)
    if note:
        out.print(note, highlight=False)


# ── export ──────────────────────────────────────────────────────────────────────────────────────────────────────


@cli.group()
def export() -> None:
    """Export the graph for other tools."""


@export.command("callgraph")
@click.option("--repo", required=True, help="Repository name in the graph.")
@click.option("--format", "fmt", type=click.Choice(["pycg", "json"]), default="pycg", show_default=True,
              help="pycg: PyCG's adjacency list; json: every call with line, resolution and confidence.")
@click.option("--min-confidence", type=click.FloatRange(0, 1), default=None,
              help="Leave out calls kg is less sure of than this (default: 0.6 for pycg, leaving out guesses such as "
                   "name_only candidates; 0 for json).")
@click.option("--evidence", type=click.Choice(["static", "observed", "all"]), default="static", show_default=True,
              help="Calls found by static analysis, seen by `kg observe` (direct ones only in pycg), or both.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to a file, not stdout.")
@pass_context
def export_callgraph(ctx: Context, repo: str, fmt: str, min_confidence: float | None, evidence: str,
                     output: str | None) -> None:
    """The call graph as JSON: keys are dotted names relative to the ingested root."""
    from kg.export import callgraph

    with ctx.open_reader() as store:
        graph = callgraph(store, repo, fmt, min_confidence, evidence)  # type: ignore[arg-type]
    text = json.dumps(graph, indent=2)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        err.print(f"[dim]{len(graph):,} callers written to {output}[/]")
    else:
        click.echo(text)


def main() -> None:
    # The driver logs a lost connection itself (warnings for retries, an error for a defunct connection); kg
    # reports the failure once, in one line, so the driver's own lines would only come first and confuse.
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)
    try:
        cli(prog_name="kg")
        code: Any = 0
    except SystemExit as e:
        code = e.code
    # A command is done when it returns: everything it wrote is flushed and closed by then (files, the cache's
    # sqlite, the graph's connections). Tearing the interpreter down would only free every object one by one: after
    # a one-file ingest that is ~0.2 s of CPU (the project index), a fifth of the run. So leave without it.
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (`kg … | head`), a stream already closed
            pass
    logging.shutdown()
    os._exit(code or 0)
