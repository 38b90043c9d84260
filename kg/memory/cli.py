"""`kg decide`, `kg decisions …` and `kg memory …`: thin commands over kg.memory, plugged into kg's CLI through the
`kg.commands` entry points. A person writes with source `cli` under the name in git config."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from kg.cli import Context, emit_json, err, json_option, out, pass_context
from kg.errors import InputError
from kg.memory import audit as audit_module
from kg.memory import config as config_module
from kg.memory import files, view
from kg.memory import items as items_module
from kg.memory.config import MemoryConfig
from kg.memory.items import MemoryItem
from kg.memory.llm_check import checker_for
from kg.memory.targets import author_for
from kg.memory.writes import MemoryWriter, Outcome
from kg.navigate.targets import pick_repo, repo_here
from kg.store import Store

repo_option = click.option("--repo", help="Repository, when several are ingested.")


FINDINGS = 3  # exit code of `memory audit --check` when it finds something: 1 is an error (as `kg review --check`)


def _config(ctx: Context) -> MemoryConfig:
    config = config_module.load(ctx.settings.project)
    if config.note:
        err.print(Text.assemble(("note:", "yellow"), f" {config.note}"), highlight=False)
    return config


def _writer(ctx: Context, store: Store, config: MemoryConfig, source: str = "cli") -> MemoryWriter:
    return MemoryWriter(store, config, author_for(ctx.settings.project), source, checker_for(config.llm_check))


def _report(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        emit_json(outcome.to_dict())
        return
    style = "yellow" if outcome.conflicts or outcome.status == "proposed" else "green"
    first, *rest = outcome.message().split("\n")
    out.print(Text(first, style=style))
    for extra in rest:
        out.print(Text(extra, style="yellow" if "flagged" in extra else "dim"))


def _status_cell(item: MemoryItem, threshold: float) -> Text:
    flags = item.flags(threshold)
    style = "green" if item.status == "confirmed" and not flags else "yellow" if item.active else "dim"
    return Text(" · ".join([item.status, *flags]), style=style)


def _items_table(title: str, found: list[MemoryItem], threshold: float) -> Table:
    table = Table(title=Text(title), show_edge=False, title_justify="left")
    for column in ("id", "status", "about", "decision"):
        table.add_column(column, overflow="fold", no_wrap=column == "id")
    for item in items_module.order(found, threshold):
        about = ", ".join(ref.split("#", 1)[-1] for ref in item.about + item.pending) or "(the plan)"
        words = item.summary + (f" — because {item.rationale}" if item.rationale else "")
        table.add_row(item.id, _status_cell(item, threshold), Text(about), Text(words))
    return table


# ── kg decide ───────────────────────────────────────────────────────────────────────────────────────────────────


@click.command()
@click.argument("text")
@click.option("--about", "about", multiple=True, required=True, metavar="NAME",
              help="Module, symbol or document it is about (repeatable): shop/cart.py, Cart.checkout, README.md.")
@click.option("--why", default="", help="The rationale.")
@click.option("--confidence", type=float, help="How sure, 0.0 to 1.0 (default 1.0).")
@click.option("--propose", is_flag=True, help="Record it as proposed, for someone else to confirm.")
@repo_option
@json_option
@pass_context
def decide(ctx: Context, text: str, about: tuple[str, ...], why: str, confidence: float | None, propose: bool,
           repo: str | None, as_json: bool) -> None:
    """Record a design decision about code, checked against the decisions already recorded about it."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        outcome = _writer(ctx, store, config).decide(text, list(about), why, confidence, propose, repo)
    _report(outcome, as_json)


# ── kg decisions ────────────────────────────────────────────────────────────────────────────────────────────────


@click.group(invoke_without_command=True)
@click.option("--about", help="Only the decisions about this module, symbol or document.")
@click.option("--status", default="active", show_default=True,
              help="active (proposed and confirmed), all, proposed, confirmed, rejected or superseded.")
@repo_option
@json_option
@click.pass_context
def decisions(click_ctx: click.Context, about: str | None, status: str, repo: str | None, as_json: bool) -> None:
    """List decisions (unverified, stale and conflicting ones say so), or act on one: show, confirm, reject,
    supersede, settle, retarget."""
    if click_ctx.invoked_subcommand is not None:
        return
    ctx: Context = click_ctx.find_object(Context)
    config = _config(ctx)
    with ctx.open_graph() as store:
        target, found = view.select(store, about, status, repo)
    threshold = config.confirm_threshold
    conflicts = [(i, c) for i in found for c in i.open_conflicts if c.flagged_by]
    if as_json:
        return emit_json({"about": target.ref if target else None, "decisions": [i.to_dict(threshold) for i in found],
                          "conflicts": [{"id": i.id, "with": c.other, "kind": c.kind, "reason": c.reason}
                                        for i, c in conflicts]})
    where = f" about {target.name}" if target else ""
    if not found:
        out.print(f"no {status} decisions{where}: record one with `kg decide TEXT --about NAME`", highlight=False)
        return None
    noun = "decision" if len(found) == 1 else "decisions"
    out.print(_items_table(f"{len(found)} {status} {noun}{where}", found, threshold))
    if conflicts:
        noun = "conflict" if len(conflicts) == 1 else "conflicts"
        out.print(Text(f"\n{len(conflicts)} unsettled {noun} (a person decides):", style="bold yellow"))
        for item, c in conflicts:
            out.print(Text(f"{item.id} is a {c.kind} of {c.other}: {c.reason}", style="yellow"))
            out.print(Text(f"  settle: kg decisions settle {item.id} {c.other} (both stand) · kg decisions reject "
                           f"{item.id} · kg decisions supersede {c.other} --by {item.id}", style="dim"))
    return None


@decisions.command("show")
@click.argument("item_id")
@json_option
@pass_context
def show(ctx: Context, item_id: str, as_json: bool) -> None:
    """Everything about one decision or knowledge item: text, why, targets (stale?), conflicts, history."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        item = items_module.get(store, item_id)
    threshold = config.confirm_threshold
    if as_json:
        return emit_json(item.to_dict(threshold))
    out.print(Text(f"{item.id} · ", style="bold") + _status_cell(item, threshold)
              + Text(f" · confidence {item.confidence:.2f} · version {item.version}"))
    if item.type == "decision":
        out.print(Text(item.text))
        if item.rationale:
            out.print(Text(f"why: {item.rationale}"))
    else:
        if item.title:
            out.print(Text(f"unit: {item.title}"))
        out.print(Text(f"responsibility: {item.responsibility or '(none)'}"))
        for pitfall in item.pitfalls:
            out.print(Text(f"  pitfall: {pitfall}"))
    out.print(Text(f"by {item.author} ({item.source}) on {str(item.created_at)[:19]}; last change "
                   f"{str(item.updated_at)[:19]} by {item.updated_by}", style="dim"))
    for t in item.targets:
        state = "[stale: changed since recorded]" if t.stale else "unchanged since recorded"
        out.print(Text(f"  about {t.name} ({t.kind}) {state}", style="yellow" if t.stale else ""))
    for ref in item.orphaned:
        out.print(Text(f"  about {ref.split('#', 1)[-1]} [orphaned: gone from the graph]", style="yellow"))
    for path in item.pending:
        out.print(Text(f"  about {path} (planned, not written yet)", style="dim"))
    for c in item.conflicts:
        state = "open" if c.open else "settled" if c.settled else f"closed ({c.other_status})"
        out.print(Text(f"  {c.kind} with {c.other} ({state}): {c.reason}", style="yellow" if c.open else "dim"))
    for other in item.supersedes:
        out.print(Text(f"  supersedes {other}", style="dim"))
    for other in item.superseded_by:
        out.print(Text(f"  superseded by {other}", style="dim"))
    return None


def _status_command(name: str, status: str, help_text: str) -> click.Command:
    @click.command(name, help=help_text)
    @click.argument("item_id")
    @json_option
    @pass_context
    def command(ctx: Context, item_id: str, as_json: bool) -> None:
        config = _config(ctx)
        with ctx.open_graph() as store:
            outcome = _writer(ctx, store, config).set_status(item_id, status)
        _report(outcome, as_json)

    return command


_CONFIRM_HELP = ("Confirm a decision or knowledge item: it holds for the code as it is now (records its targets' "
                 "hashes again, re-attaches targets that are back).")
_REJECT_HELP = "Reject a decision or knowledge item: it is not (or no longer) true. It stays as history."
decisions.add_command(_status_command("confirm", "confirmed", _CONFIRM_HELP))
decisions.add_command(_status_command("reject", "rejected", _REJECT_HELP))


@decisions.command("supersede")
@click.argument("item_id")
@click.option("--by", "by", help="The decision that replaces it.")
@click.option("--text", help="Or: the new decision's text (about the same targets).")
@click.option("--why", default="", help="With --text: the new decision's rationale.")
@json_option
@pass_context
def supersede(ctx: Context, item_id: str, by: str | None, text: str | None, why: str, as_json: bool) -> None:
    """Replace a decision by a newer one; the old one stays as history."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        outcome = _writer(ctx, store, config).supersede(item_id, by, text, why)
    _report(outcome, as_json)


@decisions.command("settle")
@click.argument("first")
@click.argument("second")
@json_option
@pass_context
def settle(ctx: Context, first: str, second: str, as_json: bool) -> None:
    """Two flagged decisions both stand: the duplicate or contradiction flag between them was a false alarm."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        outcome = _writer(ctx, store, config).settle(first, second)
    _report(outcome, as_json)


@decisions.command("retarget")
@click.argument("item_id")
@click.option("--about", "about", multiple=True, required=True, metavar="NAME", help="What it is about now.")
@json_option
@pass_context
def retarget(ctx: Context, item_id: str, about: tuple[str, ...], as_json: bool) -> None:
    """Point a decision or knowledge item at other code (its target was renamed, moved or deleted)."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        outcome = _writer(ctx, store, config).retarget(item_id, list(about))
    _report(outcome, as_json)


# ── kg memory ───────────────────────────────────────────────────────────────────────────────────────────────────


@click.group()
def memory() -> None:
    """Project memory: what the graph knows about a module, knowledge people write, audit, export and import."""


memory.add_command(_status_command("confirm", "confirmed", _CONFIRM_HELP))
memory.add_command(_status_command("reject", "rejected", _REJECT_HELP))
memory.add_command(retarget, "retarget")


@memory.command("show")
@click.argument("name")
@repo_option
@json_option
@pass_context
def memory_show(ctx: Context, name: str, repo: str | None, as_json: bool) -> None:
    """What the graph knows about a module or symbol: responsibility, pitfalls, decisions, summary."""
    config = _config(ctx)
    threshold = config.confirm_threshold
    with ctx.open_graph() as store:
        found = view.memory_of(store, name, threshold, repo)
    if as_json:
        return emit_json(found.to_dict(threshold))
    t = found.target
    out.print(Text(f"{t.name}", style="bold") + Text(f"  {t.kind} in {t.repo}:{t.path}", style="dim"))
    if found.summary:
        out.print(Text(f"summary: {found.summary}"))
    if found.interface:
        out.print(Text("interface: " + ", ".join(found.interface), style="dim"))
    if not found.knowledge:
        out.print(Text(f"no knowledge recorded: `kg memory set {t.name} --responsibility TEXT --pitfall TEXT`",
                       style="dim"))
    for k in found.knowledge:
        label = Text(" [unverified]", style="yellow") if k.unverified(threshold) else Text("")
        out.print(Text(f"{k.title or 'responsibility'}: ", style="bold") + Text(k.responsibility or "(none)")
                  + label + Text(f"  {k.id}", style="dim"))
        for pitfall in k.pitfalls:
            out.print(Text(f"  watch out: {pitfall}"))
    if found.decisions:
        out.print(_items_table("decisions", found.decisions, threshold))
    else:
        out.print(Text(f"no decisions recorded: `kg decide TEXT --about {t.name}`", style="dim"))
    if found.around:
        out.print(_items_table("decisions about its module", found.around, threshold))
    return None


@memory.command("set")
@click.argument("name")
@click.option("--responsibility", help="What it is for, in two or three sentences.")
@click.option("--pitfall", "pitfalls", multiple=True, help="A point people often get wrong (repeatable; added).")
@click.option("--drop-pitfall", "drop", multiple=True, help="Remove a pitfall (its exact text).")
@click.option("--title", default="", help="A unit finer or wider than the file (a class, a behaviour).")
@click.option("--about", "also", multiple=True, metavar="NAME", help="More targets of a titled unit.")
@click.option("--confidence", type=float, help="How sure, 0.0 to 1.0 (default 1.0).")
@click.option("--propose", is_flag=True, help="Record it as proposed, for someone else to confirm.")
@repo_option
@json_option
@pass_context
def memory_set(ctx: Context, name: str, responsibility: str | None, pitfalls: tuple[str, ...], drop: tuple[str, ...],
               title: str, also: tuple[str, ...], confidence: float | None, propose: bool, repo: str | None,
               as_json: bool) -> None:
    """Write what a module (or symbol, or titled unit) is responsible for and the points people get wrong."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        outcome = _writer(ctx, store, config).put_knowledge([name, *also], responsibility, list(pitfalls),
                                                            list(drop), title, confidence, propose, repo)
    _report(outcome, as_json)


@memory.command("audit")
@repo_option
@click.option("--check", is_flag=True, help=f"For CI: exit with code {FINDINGS} when anything is found (1 is an "
              "error, as for every command; 0: nothing found).")
@json_option
@pass_context
def memory_audit(ctx: Context, repo: str | None, check: bool, as_json: bool) -> None:
    """Stale, orphaned, unused and conflicting memory, each with the command that settles it."""
    config = _config(ctx)
    with ctx.open_graph() as store:
        findings = audit_module.audit(store, config, pick_repo(store, repo) if repo else None)
    if as_json:
        emit_json([f.to_dict() for f in findings])
    elif not findings:
        out.print(Text("memory audit: nothing stale, orphaned, unused or in conflict", style="green"))
    else:
        out.print(Text(f"memory audit: {len(findings)} findings", style="bold"))
        for f in findings:
            out.print(Text(f"{f.kind:<9}", style="yellow") + Text(f"{f.id}  {f.summary!r}"))
            out.print(Text(f"          {f.detail}"))
            out.print(Text(f"          settle: {f.settle}", style="dim"))
    if check and findings:
        sys.exit(FINDINGS)


@memory.command("export")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
@repo_option
@json_option
@pass_context
def memory_export(ctx: Context, folder: Path | None, repo: str | None, as_json: bool) -> None:
    """Write the memory as Markdown (default .agent-memory/ in the project): one file per module plus an index."""
    folder = folder or ctx.settings.project / ".agent-memory"
    with ctx.open_graph() as store:
        name = _memory_repo(store, repo)
        written = files.export(store, name, folder)
    if as_json:
        return emit_json({"repo": name, "folder": str(folder), "files": written})
    out.print(f"exported the memory of {name} to {folder}: {len(written)} files", highlight=False)
    return None


@memory.command("import")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--confirm", is_flag=True, help="You reviewed these files: items they say are confirmed stay "
              "confirmed, with the authors and dates written there (otherwise new items land proposed, as yours).")
@json_option
@pass_context
def memory_import(ctx: Context, folder: Path | None, confirm: bool, as_json: bool) -> None:
    """Read edits made in .agent-memory/ back into the graph (checked and merged like any other write)."""
    folder = folder or ctx.settings.project / ".agent-memory"
    config = _config(ctx)
    with ctx.open_graph() as store:
        report = files.import_folder(store, _writer(ctx, store, config, "import"), folder, confirm)
    if as_json:
        return emit_json(report.to_dict())
    out.print(f"imported {folder}: {len(report.created)} new, {len(report.restored)} restored, "
              f"{len(report.updated)} updated, {report.unchanged} unchanged, {len(report.conflicts)} conflicts",
              highlight=False)
    for line in report.conflicts:
        out.print(Text(line, style="yellow"))
    return None


def _memory_repo(store: Store, repo: str | None) -> str:
    if repo:
        return pick_repo(store, repo)
    here = repo_here(store)
    if here:
        return here
    with_memory = [r["repo"] for r in store.read("memory/repos")]
    if len(with_memory) == 1:
        return with_memory[0]
    if not with_memory:
        return pick_repo(store, None)
    raise InputError(f"memory exists for {len(with_memory)} repositories ({', '.join(with_memory)}): pass --repo")
