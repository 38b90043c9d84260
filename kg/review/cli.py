"""`kg review`: the architecture review as one HTML page, as JSON, or (with --check) as a CI verdict."""

from __future__ import annotations

import json
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import click

from kg.cli import Context, emit_json, err, json_option, out, pass_context
from kg.errors import InputError
from kg.render import echo, progress_bar
from kg.review import analysis, compare, rules
from kg.review.collect import Review, collect, findings, target
from kg.review.history import history
from kg.store import Store

BASELINE_FILE = Path(".agent") / "review-baseline.json"
DIAGRAM_NODES = 60  # boxes in the diagram: modules fold into folders until at most this many remain
NEW_FINDINGS = 3  # exit code of --check when there are violations or cycles the baseline lacks


@click.command()
@click.option("--repo", help="Repository to review when several are ingested.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the HTML page (default: reviews/REPO.html in kg's cache folder, out of the "
                   "repository's tree; with --json only when given).")
@click.option("--since", metavar="REV|FILE",
              help="Show what got better or worse since a git revision (ingested into a temporary repository) or "
                   "a stored review (the JSON of --json or an earlier HTML page).")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Architecture rules (default: .agent/architecture.yaml in the reviewed repository).")
@click.option("--top", default=25, show_default=True, type=click.IntRange(1), help="Hotspots to list.")
@click.option("--check", is_flag=True,
              help=f"For CI: print rule violations and import cycles the baseline lacks, one per line, and exit "
                   f"{NEW_FINDINGS} if there are any.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              help=f"With --check: what is already accepted (default: {BASELINE_FILE} in the repository, if any).")
@click.option("--update-baseline", is_flag=True, help="With --check: write today's violations and cycles as the "
                                                      "baseline instead of checking.")
@json_option
@pass_context
def review(ctx: Context, repo: str | None, output: Path | None, since: str | None, rules_file: Path | None,
           top: int, check: bool, baseline: Path | None, update_baseline: bool, as_json: bool) -> None:
    """Review a repository's architecture: dependency diagram, cycles, rule violations, hotspots, coupling, dead
    code and decisions, in one self-contained HTML page."""
    if (baseline or update_baseline) and not check:
        raise InputError("--baseline and --update-baseline go with --check")
    if check and since:
        raise InputError("--check compares with --baseline, not --since: pick one")
    began = time.perf_counter()
    with ctx.open_graph() as store:
        where = target(store, repo)
        rules_path = rules_file or where.root / rules.RULES_FILE
        if rules_file and not rules_file.exists():
            raise InputError(f"no rules file {rules_file}")
        architecture = rules.load(rules_path)
        if check:
            _check(store, where.repo, where.root, architecture, baseline, update_baseline, as_json)
            return
        with progress_bar(enabled=not as_json and err.is_terminal) as progress:
            before = _earlier(store, where.repo, where.root, since, architecture, progress) if since else None
            progress("review", 0, 1)
            result = collect(store, where.repo, architecture, rules_path if rules_path.exists() else None, top)
            progress("review", 1, 1)
    if before is not None:
        result.changes = compare.compare(before[0], result.to_dict(), before[1])
    from kg.review import page  # the page's template engine and drawing: not needed by --check
    from kg.review.diagram import render as draw

    drawing = draw(_diagram_graph(result))
    for note in [*result.notes, *([drawing.note] if drawing.note else [])]:
        err.print(f"[yellow]note:[/] {note}", highlight=False)
    if drawing.note:
        result.notes.append(drawing.note)
    if output is None and not as_json:
        output = default_output(result.repo)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page.render(result, drawing), encoding="utf-8")
    if as_json:
        emit_json({**result.to_dict(), "diagram": drawing.engine, "output": str(output) if output else None})
        return
    seconds = time.perf_counter() - began
    cut = sum(len(g["cut"]) for g in result.cycles)
    left_out = result.scope["excluded"]
    scope = f" (of {result.scope['modules'] + left_out:,}: tests, docs and the rules' `exclude` leave out " \
        f"{left_out:,})" if left_out else ""
    out.print(f"[bold]{result.repo}[/]: {result.scope['modules']:,} modules{scope} · {len(result.cycles)} import "
              f"cycles ({cut} edges to cut) · {len(result.violations)} rule violations · "
              f"{result.dead_code['total']:,} dead-code candidates → {output} in {seconds:.1f} s", highlight=False,
              soft_wrap=True)
    # soft_wrap: the page's path stays one piece, to copy or click
    if result.changes:
        echo(compare.summary_line(result.changes))


def default_output(repo: str) -> Path:
    """Where the page goes unless -o says: kg's cache folder, not the current folder (newuser5: a review.html left
    untracked in the user's git tree)."""
    from kg.server.build import cache_root

    return (cache_root() / "reviews" / f"{repo}.html").resolve()


def _earlier(store: Store, repo: str, root: Path, since: str, architecture: rules.Architecture,
             progress: Any) -> tuple[dict[str, Any], str]:
    """The review to compare with: a stored one (a file) or the review of a git revision's tree."""
    stored = Path(since)
    if stored.is_file():
        return compare.load(stored), stored.name
    (plugin,) = entry_points(group="kg.revision_graph", name="ingest")
    with plugin.load()(store, root, since, repo, progress) as (name, commit):
        earlier = collect(store, name, architecture, with_history=False)
        data = earlier.to_dict()
        data["revision"] = commit[:12]
    return data, since


def _diagram_graph(result: Review) -> Any:
    graph = result.graph
    lines = {data["path"]: data.get("loc") or 0 for _, data in graph.nodes(data=True)}
    shown = analysis.collapse(lines, DIAGRAM_NODES)
    violating = {(v["source"], v.get("target")) for v in result.violations}
    return analysis.package_graph(graph, shown, result.cycles, violating)


def _check(store: Store, repo: str, root: Path, architecture: rules.Architecture, baseline: Path | None,
           update: bool, as_json: bool) -> None:
    path = baseline or root / BASELINE_FILE
    current = findings(store, repo, architecture)
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        revision = history(root).revision
        path.write_text(json.dumps(compare.baseline_of(current, repo, revision), indent=1) + "\n", encoding="utf-8")
        if as_json:
            emit_json({"baseline": str(path), "violations": len(current.violations),
                       "cyclic_dependencies": len(analysis.cyclic_edges(current.cycles))})
        else:
            out.print(f"baseline written to {path}: {len(current.violations)} violations, "
                      f"{len(analysis.cyclic_edges(current.cycles))} cyclic dependencies", highlight=False)
        return
    if baseline and not baseline.exists():
        raise InputError(f"no baseline file {baseline}: write one with `kg review --check --update-baseline`")
    accepted = compare.load(path) if path.exists() else None
    found = compare.new_findings(accepted, current)
    failed = bool(found["new_violations"] or found["new_cycles"])
    if as_json:
        emit_json({"repo": repo, "baseline": str(path) if accepted else None, "passed": not failed, **found})
    else:
        for line in compare.finding_lines(found):
            echo(line)
        against = f"baseline {path}" if accepted else "no baseline"
        err.print(f"{'[red]failed' if failed else '[green]passed'}[/]: {len(found['new_violations'])} new "
                  f"violations, {len(found['new_cycles'])} new cyclic dependencies against {against} "
                  f"({len(found['fixed_violations'])} violations and {len(found['fixed_cycles'])} cyclic "
                  "dependencies fixed)", highlight=False)
    if failed:
        sys.exit(NEW_FINDINGS)
