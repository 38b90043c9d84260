"""`kg ingest` and `kg forget`: the ingest commands, plugged into kg's CLI through the `kg.commands` entry point."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from kg.ingest.cache import project_cache_dir
from kg.ingest.lock import end_orphaned_writes, repo_lock
from kg.ingest.pipeline import Ingestor, IngestReport
from kg.ingest.writer import GraphWriter
from rich.console import Group
from rich.table import Table
from rich.text import Text

from kg.cli import Context, emit_json, err, json_option, out, pass_context
from kg.errors import GraphFailed, GraphUnavailable, InputError
from kg.render import progress_bar

if TYPE_CHECKING:
    from kg.retrieve import embed as embedding


@click.command()
@click.argument("path", type=click.Path(path_type=Path), default=".")
@click.option("--repo", help="Name of the repository in the graph (default: the name the folder was ingested "
                              "under, else the folder's name).")
@click.option("--role", type=click.Choice(["target", "reference"]), default="target", show_default=True,
              help="target: code being built or reviewed; reference: code to learn from.")
@click.option("--exclude", "excludes", multiple=True, help="Gitignore-style pattern to leave out (repeatable).")
@click.option("--watch", is_flag=True, help="Keep the graph current while files change (Ctrl-C stops).")
@click.option("--embed", is_flag=True, help="Also embed new and changed symbols for `kg context --task` "
                                            "(needs a model: pip install 'kg[embed]').")
@json_option
@pass_context
def ingest(ctx: Context, path: Path, repo: str | None, role: str, excludes: tuple[str, ...], watch: bool,
           embed: bool, as_json: bool) -> None:
    """Parse a repository into the graph; later runs write only what changed."""
    embedder = _embedder() if embed else None

    def show(report: IngestReport, first: bool = False) -> None:
        embedded = None
        if embedder is not None and (first or report.changed):
            from kg.retrieve import vectors  # with the driver: only --embed needs it

            with progress_bar(enabled=not as_json and out.is_terminal) as bar:
                # the first run embeds whatever lacks a current vector; later ones just the files they rewrote
                embedded = vectors.sync(store, report.repo, embedder, None if first else report.changed, bar)
        if as_json:
            emit_json({**report.to_dict(), "embedded": embedded.to_dict() if embedded else None})
            return
        out.print(summary(report))
        if embedded is not None:
            out.print(f"embedded {embedded.total:,} of {embedded.considered:,} symbols and modules with "
                      f"{embedded.model} in {embedded.seconds:.1f} s"
                      + (" (vector indexes rebuilt: the model changed)" if embedded.rebuilt_index else ""),
                      highlight=False)

    # A one-shot run writes over HTTP and never imports the driver (~0.3 s of CPU); a watcher or the embedding phase
    # keeps one driver connection for all its writes.
    with (ctx.open_graph() if watch or embed else ctx.open_writer()) as store:
        if repo is None:
            repo = _ingested_as(store, path)
        with progress_bar(enabled=not as_json and out.is_terminal) as progress:
            ingestor = Ingestor(store, path, repo=repo, role=role, excludes=excludes,
                                cache_dir=project_cache_dir(ctx.settings.project), progress=progress)
            with _server_stopping(ctx, ingestor):
                report = ingestor.run()
        show(report, first=True)
        if watch:
            from kg.ingest.watch import watch

            if not as_json:
                out.print(f"[dim]watching {ingestor.root} — Ctrl-C stops[/]")
            with _server_stopping(ctx, ingestor):
                for report in watch(ingestor):
                    show(report)


@contextmanager
def _server_stopping(ctx: Context, ingestor: Ingestor) -> Iterator[None]:
    """A lost connection to kg's local server that is no longer running said as what happened — the server stopped
    during the ingest (`kg server stop`, or it died) — and what to do, in one line (newuser4 #5)."""
    try:
        yield
    except (GraphUnavailable, GraphFailed) as e:
        if ctx.settings.uri_configured:
            raise
        from kg.server import local

        now = local.status(ctx.settings, database=False)
        if now.running:
            raise
        why = ("it was shutting down" if now.pid else now.last_error if now.stopped_unexpectedly and now.last_error
               else "stopped by `kg server stop`")
        again = f"kg ingest {shlex.quote(str(ingestor.root))} --repo {shlex.quote(ingestor.repo)}"
        then = (f"{ingestor.repo} is marked unfinished until then" if ingestor.writer.marked
                else "the graph keeps what it held before this run")
        raise GraphUnavailable(f"the Neo4j server stopped during the ingest ({why}): start it with `kg server "
                               f"start` and run `{again}` again; {then}") from e


def _ingested_as(store: Any, path: Path) -> str | None:
    """The name the folder was ingested under, when --repo is not given: a later `kg ingest .` updates it instead of
    making a second repository named after the folder. A folder inside an ingested repository would become a second,
    overlapping one with other module names (`kg ingest .` in flask's src/flask made `app.Flask` beside
    `flask.app.Flask`), and answers from there would come from it: ask what was meant."""
    try:
        here = path.resolve()
    except OSError:
        return None  # the Ingestor says what is wrong with the path
    rows = [(row["repo"], Path(row["root"])) for row in store.read("repos") if row["root"]]
    same = sorted(name for name, root in rows if root == here)
    if len(same) == 1:
        return same[0]
    for name, root in rows:
        if root in here.parents:
            raise InputError(f"{here} is inside repository {name!r} (root {root}): run `kg ingest {root}` to "
                             "update it, or give --repo NAME to make this folder a repository of its own")
    return None


def _embedder() -> embedding.Embedder:
    """The installed model for --embed; without one, a one-line error saying how to install it."""
    from kg.retrieve import embed as embedding

    model = embedding.load()
    if isinstance(model, embedding.Missing):
        raise InputError(f"--embed needs an embedding model: {model.reason}")
    err.print(f"[dim]embedding with {model.model_id}[/]", highlight=False)
    return model


@click.command()
@click.argument("repo")
@json_option
@pass_context
def forget(ctx: Context, repo: str, as_json: bool) -> None:
    """Remove a repository and everything ingested from it."""
    from kg.navigate.targets import pick_repo

    with ctx.open_graph() as store:
        pick_repo(store, repo)  # an unknown name is an error ("forgot nope" said nothing was wrong)
        with repo_lock(store.settings, repo):  # after a running ingest of it; a killed one's writes are ended first
            if ended := end_orphaned_writes(store, repo):
                err.print(ended, highlight=False)
            GraphWriter(store, repo).forget_repo()
    if as_json:
        return emit_json({"forgotten": repo})
    out.print(f"forgot {repo}")


def summary(report: IngestReport, max_skipped: int = 12) -> Group:
    """The one-screen summary of an ingest run."""
    head = Text.assemble(
        (report.repo, "bold"), f"  {report.files:,} code files · {report.documents:,} documents · ",
        f"{report.written:,} written · {report.reresolved:,} re-resolved · {report.deleted:,} deleted · ",
        f"{report.unchanged:,} unchanged · {report.seconds:.2f} s (parse {report.parse_seconds:.2f} s)")
    parts: list[Any] = [head]
    if report.edges:
        table = Table(show_edge=False, box=None, padding=(0, 2))
        table.add_column("edges written", style="bold")
        table.add_column("count", justify="right")
        for kind, count in sorted(report.edges.items()):
            table.add_row(kind, f"{count:,}")
        for resolution, count in sorted(report.calls_by_resolution.items(), key=lambda kv: -kv[1]):
            table.add_row(f"  CALLS by {resolution}", f"{count:,}")
        parts.append(table)
    if report.symbols:
        parts.append(Text(f"symbols in the repository: {report.symbols:,}"))
    if report.syntax_errors:
        parts.append(Text(f"{len(report.syntax_errors)} files had syntax errors (kept what parsed): "
                          + ", ".join(sorted(report.syntax_errors)[:5]), style="yellow"))
    if report.bad_encoding:
        parts.append(Text(f"{len(report.bad_encoding)} files are not valid UTF-8 (read with replacement): "
                          + ", ".join(report.bad_encoding[:5]), style="yellow"))
    for note in report.notes:
        parts.append(Text(note, style="yellow"))
    if report.skipped:
        parts.append(Text(f"skipped {len(report.skipped)} files:", style="yellow"))
        for path, reason in report.skipped[:max_skipped]:
            parts.append(Text(f"  {path}: {reason}"))
        if len(report.skipped) > max_skipped:
            parts.append(Text(f"  … and {len(report.skipped) - max_skipped} more (--json lists all)"))
    return Group(*parts)
