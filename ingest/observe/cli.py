"""`kg observe`: run a test suite under kg's tracer and store what ran, plugged into kg's CLI."""

from __future__ import annotations

from pathlib import Path

import click
from kg.ingest.observe.observer import ObserveReport
from kg.ingest.observe.observer import observe as run_observe
from rich.console import Group
from rich.text import Text

from kg.cli import Context, emit_json, err, json_option, out, pass_context


class _SplitAtDashes(click.Command):
    """Everything after `--` is the command to run, untouched; what comes before is parsed as usual."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            args, ctx.meta["observe_command"] = args[:at], args[at + 1:]
            if not ctx.meta["observe_command"]:
                raise click.UsageError("nothing after --: give the command that runs the tests", ctx)
        return super().parse_args(ctx, args)


@click.command(cls=_SplitAtDashes)
@click.argument("path", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--repo", help="Repository to observe (default: the ingested one holding PATH or the current folder).")
@click.option("--changed", is_flag=True,
              help="Run only the tests that ran code changed since it was observed, or whose file changed.")
@click.option("--replace", is_flag=True,
              help="The command given after -- runs the whole suite: replace what earlier runs stored.")
@click.option("-q", "--quiet", is_flag=True, help="Do not show the test run's output.")
@json_option
@pass_context
def observe(ctx: Context, path: Path | None, repo: str | None, changed: bool, replace: bool, quiet: bool,
            as_json: bool) -> None:
    """Run the tests traced and store what ran: observed CALLS and which code each test covers.

    \b
    kg observe [--repo R] [PATH] [-- COMMAND...]
    Default COMMAND: `python -m pytest` with the project's .venv/venv Python (else kg's own).
    """
    command = click.get_current_context().meta.get("observe_command", [])
    quiet = quiet or as_json
    with ctx.open_graph() as store:
        report = run_observe(store, path, repo, command or None, changed, replace=replace,
                             work_dir=ctx.settings.project / ".kg" / "observe",
                             echo=None if quiet else lambda line: err.print(Text(line), highlight=False))
    if as_json:
        return emit_json(report.to_dict())
    out.print(summary(report))
    return None


def summary(report: ObserveReport) -> Group:
    parts: list = []
    if report.command:
        parts.append(Text(f"ran {report.command}  ({report.origin})", style="dim"))
    if report.mode == "changed":
        parts.append(Text(f"changed since observed: {len(report.changed_nodes)} symbols"
                          + (f" ({', '.join(report.changed_nodes[:5])}{' …' if len(report.changed_nodes) > 5 else ''})"
                             if report.changed_nodes else "")
                          + f"; {report.selected} tests or test files to run again; "
                          + f"{report.refreshed} unchanged symbols of changed files marked fresh"))
    if report.tests:
        outcome = ", ".join(f"{n} {k}" for k, n in sorted(report.outcomes.items(), key=lambda kv: -kv[1]))
        edges = ", ".join(f"{n:,} {k}" for k, n in sorted(report.edges.items()))
        parts.append(Text.assemble((report.repo, "bold"), f"  {report.tests:,} tests ({outcome}) · "
                                   f"{report.covers:,} COVERS · observed CALLS: {edges or 'none'} · "
                                   f"suite {report.suite_seconds:.1f} s, total {report.seconds:.1f} s "
                                   f"({report.tracer}, Python {report.python})"))
    for note in report.notes:
        parts.append(Text(note, style="yellow" if "failed" in note else "dim"))
    return Group(*parts)
