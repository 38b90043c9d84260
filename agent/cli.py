"""`kg agent run|status|resume`, `kg tokens report`, `kg context`: thin commands over agent.loop, agent.records and
agent.context, plugged into kg's CLI through the `kg.commands` entry points."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
from kg.agent import records
from kg.agent.context import Budget, ContextBuilder
from kg.agent.guards import Limits
from kg.agent.llm import LLMClient, LLMConfig
from kg.agent.loop import AgentLoop, RunOptions, RunOutcome, TurnInfo
from kg.agent.plan import load_plan
from kg.agent.tokens import Tokenizer, encoding_for
from kg.agent.tools import TOOL_NAMES, tool_specs
from kg.agent.workspace import Workspace
from kg.ingest.cache import project_cache_dir
from rich.markup import escape
from rich.table import Table

from kg.cli import Context, emit_json, err, json_option, out, pass_context
from kg.errors import InputError, KgError
from kg.navigate.targets import repo_here
from kg.render import echo, inline, progress_bar
from kg.retrieve.config import TASK_TYPES, load_budget, load_orchestrator
from kg.retrieve.context import build as build_context
from kg.retrieve.context import ranking_notes, require_task
from kg.retrieve.rank import DEFAULT_SIGNALS, SIGNALS
from kg.retrieve.search import retrieve
from kg.retrieve.service import embed_if_needed, read_task_file, task_repo

FILES_SHOWN = 20  # `kg context --files`: the ranked files printed by default
_model = click.option("--model", help="Model name (env KG_LLM_MODEL).")
_base_url = click.option("--base-url", help="OpenAI-compatible endpoint (env KG_LLM_BASE_URL); key from "
                                            "KG_LLM_API_KEY or OPENAI_API_KEY.")
_timeout = click.option("--llm-timeout", type=click.FloatRange(0, min_open=True),
                         help="Seconds to wait for one LLM answer (default 120).")
_max_tokens = click.option("--max-tokens", type=click.IntRange(16), help="Cap on one answer's tokens (default 4096).")
_attempts = click.option("--llm-attempts", type=click.IntRange(1),
                         help="Tries per LLM call on rate limits, server errors and timeouts (default 4).")
_max_iter = click.option("--max-iterations", type=click.IntRange(1), help="Turn cap (default 800).")
_max_time = click.option("--max-time", type=click.FloatRange(0), help="Wall-clock cap in seconds (default 7200).")


@click.group()
def agent() -> None:
    """Run kg's coding agent: a plan-driven loop whose prompt is rebuilt from the graph every turn."""


@agent.command("run")
@click.option("--plan", "plan_path", required=True, type=click.Path(path_type=Path),
              help="Markdown or YAML plan naming every file to create.")
@click.option("--workspace", required=True, type=click.Path(path_type=Path),
              help="Folder the agent writes to (created when missing).")
@_model
@_base_url
@click.option("--repo", help="Repository name of the workspace in the graph (default ws-<folder>-<hash>).")
@_max_iter
@_max_time
@click.option("--stall-budget", type=click.FloatRange(0),
              help="Agent seconds (LLM waits excluded) without a file done before aborting (default 900).")
@click.option("--turn-budget", type=click.IntRange(500), help="Token budget of one prompt (default 8000).")
@click.option("--knowledge-budget", type=click.IntRange(50), help="Tokens for module summaries (default 3000).")
@click.option("--summaries", type=click.Choice(["structural", "llm"]), default="structural", show_default=True,
              help="How a written file is summarised.")
@click.option("--tool-choice", default="auto", show_default=True,
              help="auto, required, or a tool name to force (small local models).")
@click.option("--guided", is_flag=True, help="Limit write_file's path to the next planned files (small models).")
@_timeout
@_attempts
@_max_tokens
@json_option
@pass_context
def run(ctx: Context, plan_path: Path, workspace: Path, model: str | None, base_url: str | None, repo: str | None,
        max_iterations: int | None, max_time: float | None, stall_budget: float | None, turn_budget: int | None,
        knowledge_budget: int | None, summaries: str, tool_choice: str, guided: bool, llm_timeout: float | None,
        llm_attempts: int | None, max_tokens: int | None, as_json: bool) -> None:
    """Implement a plan in a workspace, one tool call per turn, until every planned file exists or a guard stops."""
    if tool_choice not in ("auto", "required") and tool_choice not in TOOL_NAMES:
        raise InputError(f"--tool-choice {tool_choice!r} is not auto, required or a tool name "
                         f"({', '.join(sorted(TOOL_NAMES))})")
    plan = load_plan(plan_path)
    Workspace(workspace)  # a workspace that cannot be a folder is refused before anything is stored
    llm = LLMClient(LLMConfig.resolve(model, base_url, timeout=llm_timeout, attempts=llm_attempts,
                                      max_tokens=max_tokens))
    limits = Limits(**_given(max_iterations=max_iterations, max_seconds=max_time, stall_seconds=stall_budget))
    budget = Budget(**_given(turn=turn_budget, knowledge=knowledge_budget))
    options = RunOptions(limits, budget, summaries, tool_choice, guided)
    with ctx.open_graph() as store:
        loop = AgentLoop.start(store, llm, plan, workspace, repo, options)
        if not as_json:
            err.print(f"[dim]run {loop.run_id} · plan {plan.title!r} ({len(plan.files)} files) · "
                      f"workspace {loop.workspace.root} · model {llm.config.model}[/]", highlight=False)
        _drive(loop, as_json)


@agent.command("resume")
@click.argument("run_id")
@_model
@_base_url
@_max_iter
@_max_time
@_timeout
@_attempts
@json_option
@pass_context
def resume(ctx: Context, run_id: str, model: str | None, base_url: str | None, max_iterations: int | None,
           max_time: float | None, llm_timeout: float | None, llm_attempts: int | None, as_json: bool) -> None:
    """Continue a run that crashed or was stopped, from what the graph holds."""
    with ctx.open_graph() as store:
        run_row = records.get_run(store, run_id)
        limits = RunOptions.from_json(run_row.get("options")).limits
        if run_row["status"] == "max_iterations" and (max_iterations or 0) <= run_row["iterations"]:
            raise InputError(f"run {run_id} stopped at its iteration cap ({limits.max_iterations}): resume it with "
                             f"--max-iterations N (more than {run_row['iterations']})")
        if run_row["status"] == "max_time" and (max_time or 0) <= (run_row.get("elapsed") or 0):
            raise InputError(f"run {run_id} stopped at its time cap ({limits.max_seconds:g} s): resume it with "
                             f"--max-time SECONDS (more than {run_row.get('elapsed') or 0:g})")
        llm = LLMClient(LLMConfig.resolve(model or run_row.get("model"), base_url or run_row.get("base_url") or None,
                                          timeout=llm_timeout or run_row.get("llm_timeout"), attempts=llm_attempts,
                                          max_tokens=run_row.get("max_tokens")))
        loop = AgentLoop.resume(store, run_id, llm, **_given(max_iterations=max_iterations, max_seconds=max_time))
        if not as_json:
            err.print(f"[dim]resuming {run_id} at turn {loop.guard.iterations + 1}[/]", highlight=False)
        _drive(loop, as_json)


@agent.command("status")
@click.argument("run_id", required=False)
@click.option("--limit", default=20, show_default=True, help="Runs to list.")
@json_option
@pass_context
def status(ctx: Context, run_id: str | None, limit: int, as_json: bool) -> None:
    """The state of one run (status, iterations, done/total, remaining files) or of the latest runs."""
    with ctx.open_graph() as store:
        runs = [records.get_run(store, run_id)] if run_id else records.list_runs(store, limit)
    runs = [{k: v for k, v in r.items() if k != "options"} for r in runs]
    if as_json:
        return emit_json(runs[0] if run_id else runs)
    if not runs:
        out.print("no agent runs in the graph: start one with `kg agent run --plan PLAN --workspace DIR`")
        return
    if run_id:
        r = runs[0]
        out.print(f"[bold]{r['id']}[/] {_status(r['status'])} · {r['done']}/{r['total']} files · "
                  f"{r['iterations']} turns · {r.get('elapsed', 0):.1f} s ({r.get('llm_seconds', 0):.1f} s LLM)",
                  highlight=False)
        if r.get("reason"):
            out.print(f"reason: {r['reason']}", highlight=False)
        if r["status"] == "running":
            out.print(f"[dim]if its process is gone (killed, crashed), `kg agent resume {r['id']}` continues it[/]",
                      highlight=False)
        problems = dict(p.split(": ", 1) for p in r.get("problems") or [])
        for path in r.get("remaining") or []:
            why = f" ({problems[path]})" if path in problems else ""
            out.print(f"  remaining: {path}{why}", highlight=False)
        return
    table = Table(show_edge=False)
    for column in ("run", "status", "files", "turns", "model", "started"):
        table.add_column(column)
    for r in runs:
        table.add_row(r["id"], _status(r["status"]), f"{r['done']}/{r['total']}", str(r["iterations"]),
                      r.get("model") or "", (r.get("started_at") or "")[:19])
    out.print(table)


@click.group()
def tokens() -> None:
    """The token ledger of agent runs."""


@tokens.command("report")
@click.option("--run", "run_id", help="One run (default: the latest run).")
@click.option("--all", "every_run", is_flag=True, help="Every run in the graph added up.")
@click.option("--by", "by", type=click.Choice(["segment", "turn", "file"]), default="segment", show_default=True)
@click.option("--days", default=1, show_default=True, type=click.IntRange(1),
              help="Days of budget alerts and degradations to show (today is 1).")
@json_option
@pass_context
def report(ctx: Context, run_id: str | None, every_run: bool, by: str, days: int, as_json: bool) -> None:
    """Tokens per prompt segment, per turn or per planned file of the latest run (or --run, --all), reconciled with
    the usage the API reported; then the budget alerts and degradation steps of contexts (.agent/budget.yaml)."""
    if run_id and every_run:
        raise click.UsageError("--run and --all do not go together: pick one")
    if by == "turn" and every_run:
        raise click.UsageError("--by turn is per run: drop --all")
    limits = load_budget(ctx.settings.project)
    since = (datetime.now(UTC).date() - timedelta(days=days - 1)).isoformat()
    with ctx.open_graph() as store:
        if run_id:
            records.get_run(store, run_id)
        elif not every_run:
            latest = records.list_runs(store, 1)
            if not latest:
                raise InputError("no agent runs in the graph: start one with `kg agent run --plan PLAN --workspace "
                                 "DIR`")
            run_id = latest[0]["id"]
        rows = store.read(f"agent/tokens_by_{by}", run=run_id)
        budget = store.read("retrieve/budget_report", since=since, task=run_id)[0]
    steps = Counter(step for steps in budget["steps"] for step in steps) + Counter(budget["llm_steps"])
    budgets = {"since": since, "context_calls": budget["calls"], "context_tokens": budget["tokens"],
               "per_day": limits.per_day, "degradations": dict(steps), "alerts": budget["alerts"]}
    if as_json:  # --by turn|file stay a list of rows; the budgets ride along with the segment totals
        return emit_json({**rows[0], "budgets": budgets} if by == "segment" else rows)
    _budget_lines(budgets)
    if by == "segment":
        row = rows[0]
        table = Table(title=f"tokens of {run_id or 'every run'} · {row['calls']} LLM calls", show_edge=False)
        table.add_column("segment")
        table.add_column("tokens", justify="right")
        table.add_column("share", justify="right")
        prompt = row["prompt_tokens"] or 1
        for label in ("system", "plan", "knowledge", "references", "decisions", "tool_result", "tools", "file",
                      "overhead"):
            table.add_row(label, f"{row[label]:,}", f"{100 * row[label] / prompt:.1f}%")
        table.add_row("[bold]prompt (reported)[/]", f"{row['prompt_tokens']:,}", "")
        table.add_row("  of which cached", f"{row['cached_tokens']:,}", "")
        table.add_row("[bold]completion[/]", f"{row['completion_tokens']:,}", "")
        table.add_row("[bold]total[/]", f"{row['total_tokens']:,}", "")
        out.print(table)
        return
    table = Table(show_edge=False)
    for column in rows[0].keys() if rows else ["(no calls)"]:
        table.add_column(column, justify="right" if column not in ("tool", "file", "degradation") else "left")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()))
    out.print(table)


@click.command()
@click.option("--task", "task_text", help="A task or bug report in words: rank the repository's files for it.")
@click.option("--task-file", type=click.Path(path_type=Path), help="… or read it from a file (`-` for stdin).")
@click.option("--type", "task_type", type=click.Choice(TASK_TYPES), default="modify", show_default=True,
              help="What the task is: decides what is loaded (.agent/orchestrator.yaml).")
@click.option("--budget", type=click.IntRange(200), help="Token budget of this context (default: per_call).")
@click.option("--files", "files_only", is_flag=True, help="Print only the ranked file paths, one per line.")
@click.option("--limit", type=click.IntRange(1), default=FILES_SHOWN, show_default=True, metavar="N",
              help="With --files: how many of the ranked files to print (the best first).")
@click.option("--signal", "signals", multiple=True, type=click.Choice(SIGNALS),
              help="Rank with only these signals (repeatable; default all), to see what each finds.")
@click.option("--no-embed", is_flag=True, help="Do not embed the repository on first use.")
@click.option("--file", "target", help="Agent step: planned file to build the prompt for.")
@click.option("--next", "next_", is_flag=True, help="Agent step: the file the plan would do next.")
@click.option("--run", "run_id", help="Run whose plan and workspace to use (default: the latest run).")
@click.option("--plan", "plan_path", type=click.Path(path_type=Path), help="Or: a plan file …")
@click.option("--workspace", type=click.Path(path_type=Path), help="… and its workspace.")
@click.option("--repo", help="Repository (default: the only target repository, or the workspace's).")
@_model
@json_option
@pass_context
def context(ctx: Context, task_text: str | None, task_file: Path | None, task_type: str, budget: int | None,
            files_only: bool, limit: int, signals: tuple[str, ...], no_embed: bool, target: str | None,
            next_: bool, run_id: str | None, plan_path: Path | None, workspace: Path | None, repo: str | None,
            model: str | None, as_json: bool) -> None:
    """From a task to the context that matters (--task / --task-file), or the exact prompt of an agent step
    (--next / --file) with the token count of each segment."""
    if task_text is not None or task_file is not None:
        if target or next_ or plan_path or workspace or run_id:
            raise click.UsageError("--task/--task-file and the agent-step options (--file, --next, --run, --plan, "
                                   "--workspace) do not go together")
        if task_text is not None and task_file is not None:
            raise click.UsageError("give --task TEXT or --task-file FILE, not both")
        text = task_text if task_text is not None else read_task_file(task_file)  # type: ignore[arg-type]
        return _task_context(ctx, text, task_type, budget, repo, files_only, limit, signals, no_embed, model,
                             as_json)
    if files_only or signals:
        raise click.UsageError("--files and --signal go with --task or --task-file")
    if bool(target) == next_:
        raise click.UsageError("give --task TEXT, --task-file FILE, --file PATH or --next")
    with ctx.open_graph() as store:
        if plan_path or workspace:
            if not (plan_path and workspace):
                raise click.UsageError("--plan and --workspace go together")
            ws = Workspace(workspace)
            repo = repo or ws.default_repo
            store.apply_schema()
            plan_id, run_id_for_state, options = records.put_plan(store, load_plan(plan_path), repo), None, RunOptions()
        else:
            run_row = records.get_run(store, run_id) if run_id else next(iter(records.list_runs(store, 1)), None)
            if run_row is None:
                raise click.UsageError("no agent run in the graph: give --plan and --workspace")
            plan_id, repo = run_row["plan"], run_row["repo"]
            run_id_for_state, options = run_row["id"], RunOptions.from_json(run_row.get("options"))
            model = model or run_row.get("model")
        builder = ContextBuilder(store, repo, plan_id, Tokenizer(encoding_for(model)), tool_specs(), options.budget)
        prompt = builder.build(builder.state(run_id_for_state), target)
    segments = {k: s.tokens for k, s in prompt.segments.items()}
    if as_json:
        return emit_json({"next_file": prompt.next_file.path if prompt.next_file else None, "segments": segments,
                          "counted": prompt.counted, "degradation": prompt.degradation,
                          "knowledge_paths": prompt.knowledge_paths, "messages": prompt.messages})
    for message, labels in zip(prompt.messages, (("system",), ("plan",),
                                                 ("knowledge", "references", "decisions", "tool_result")),
                               strict=True):
        counts = " · ".join(f"{label} {segments[label]:,}" for label in labels)
        out.print(f"[bold cyan]── {message['role']} ── [/][dim]{counts} tokens[/]", highlight=False)
        echo(message["content"])
    out.print("[bold]segments:[/] " + " · ".join(f"{k} {v:,}" for k, v in segments.items()) +
              f" · [bold]total {prompt.counted:,} tokens[/] (degradation: {prompt.degradation})", highlight=False)


@click.command()
@click.option("--plan", "plan_path", required=True, type=click.Path(path_type=Path),
              help="The plan whose files reference code should inform.")
@click.option("--workspace", type=click.Path(path_type=Path), help="The plan's workspace (names its repository) …")
@click.option("--repo", help="… or the workspace's repository name.")
@click.option("--llm", "use_llm", is_flag=True, help="Refine each edge with the configured LLM (cached).")
@_model
@_base_url
@json_option
@pass_context
def relate(ctx: Context, plan_path: Path, workspace: Path | None, repo: str | None, use_llm: bool,
           model: str | None, base_url: str | None, as_json: bool) -> None:
    """Which files of the reference repositories inform which planned files: (:Module)-[:INFORMS]->(:PlannedFile)."""
    from kg.agent.relate import relate as relate_plan

    if not repo and not workspace:
        raise click.UsageError("give --workspace DIR (or --repo NAME) so the plan is the one the agent will run")
    plan = load_plan(plan_path)
    repo = repo or Workspace(workspace).default_repo  # type: ignore[arg-type]
    llm = LLMClient(LLMConfig.resolve(model, base_url)) if use_llm else None
    with ctx.open_graph() as store:
        for ref in (r["name"] for r in store.read("agent/reference_repos")):
            with progress_bar(enabled=not as_json and err.is_terminal) as progress:
                embed_if_needed(store, ref, progress, on_start=lambda m: err.print(f"[dim]{m}[/]", highlight=False))
        # in the user's cache folder: a file in the project could be shipped by the repository (forged verdicts, or a
        # link the write would follow)
        report = relate_plan(store, plan, repo, llm, project_cache_dir(ctx.settings.project) / "relate-llm.json")
    if as_json:
        return emit_json(report.to_dict())
    if report.skipped:
        out.print(report.skipped, highlight=False)
        return
    table = Table(title=f"reference files informing plan {report.plan}", show_edge=False)
    for column in ("planned file", "reference", "type", "confidence", "aspects", "method"):
        table.add_column(column)
    for e in report.edges:
        table.add_row(e.planned, f"{e.repo}:{e.module}", e.type, f"{e.confidence:.2f}", ", ".join(e.aspects[:3]),
                      e.method)
    out.print(table)
    if use_llm:
        out.print(f"llm: {report.llm_asked} asked, {report.llm_cached} from cache", highlight=False)


def _task_context(ctx: Context, text: str, task_type: str, budget: int | None, repo: str | None, files_only: bool,
                  limit: int, signals: tuple[str, ...], no_embed: bool, model: str | None, as_json: bool) -> None:
    """`kg context --task`: the ranked, budgeted context of a task (kg.retrieve.context, as MCP and the agent)."""
    project = ctx.settings.project
    orchestrator, limits = load_orchestrator(project), load_budget(project)
    with ctx.open_graph() as store:
        store.apply_schema()
        repo = task_repo(store, repo or repo_here(store))
        if not no_embed and (not signals or "vectors" in signals):
            with progress_bar(enabled=not as_json and err.is_terminal) as progress:
                embed_if_needed(store, repo, progress, on_start=lambda m: err.print(f"[dim]{m}[/]", highlight=False))
        if files_only and not as_json:  # the ranking alone: no context is built, so none is charged to a budget
            found = retrieve(store, repo, require_task(text), signals=signals or DEFAULT_SIGNALS)
            for note in ranking_notes(found):
                err.print(f"[yellow]note:[/] {note}", highlight=False)
            for path in found.paths()[:limit]:  # every file any signal touched was 60 of flask's 82
                echo(inline(path))
            return
        result = build_context(store, repo, text, task_type, budget=budget, orchestrator=orchestrator, limits=limits,
                               tokenizer=Tokenizer(encoding_for(model)), signals=signals or DEFAULT_SIGNALS)
    if as_json:
        return emit_json(result.to_dict())
    for note in result.notes:
        err.print(f"[yellow]note:[/] {note}", highlight=False)
    for alert in result.alerts:
        err.print(f"[bold yellow]budget:[/] {alert}", highlight=False)
    if files_only:
        for f in result.files[:limit]:
            echo(inline(f.path))
        return
    echo(result.text())
    steps = ", ".join(result.degradation) or "none"
    err.print(f"[dim]{result.tokens:,}/{result.budget:,} tokens · {result.task_type} · degradation: {steps}[/]",
              highlight=False)


def _budget_lines(budgets: dict[str, Any]) -> None:
    """Alerts and degradations, printed before the token table (stderr, so piped tables stay clean)."""
    # The agent's own LLM tokens are the table below; this line is about task contexts (kg context, MCP `context`),
    # which .agent/budget.yaml limits per day, so a run that asked for none reads "0" here, not "nothing was spent".
    err.print(f"[bold]task-context budget since {budgets['since']}:[/] {budgets['context_calls']:,} `kg context` "
              f"calls, {budgets['context_tokens']:,} of {budgets['per_day']:,} tokens a day", highlight=False)
    if budgets["degradations"]:
        err.print("degradations: " + ", ".join(f"{k} ×{v}" for k, v in sorted(budgets["degradations"].items())),
                  highlight=False)
    for a in budgets["alerts"]:
        err.print(f"[yellow]alert[/] {a['at'][:19]} {a['task']}: {'; '.join(a['alerts'])}", highlight=False)


def _drive(loop: AgentLoop, as_json: bool) -> None:
    """Run the loop with a done/total bar (the denominator is the plan's file count, fixed from the start) and one
    line per turn above it."""
    total = records.progress(loop.store, loop.plan_id, loop.repo).total
    with progress_bar(enabled=not as_json, console=err, transient=False) as progress:
        def on_turn(info: TurnInfo) -> None:
            progress("files", info.done, total)
            if not as_json:
                mark = "[green]ok[/]" if info.ok else "[red]error[/]"
                first = info.result.splitlines()[0][:100] if info.result else ""
                err.print(f"[dim]{info.n:>4}[/] {escape(info.tool)} {mark} {escape(first)} "
                          f"[dim]({info.prompt_tokens:,} prompt tokens"
                          f"{', ' + info.degradation if info.degradation != 'none' else ''})[/]",
                          highlight=False, markup=True)

        loop.on_turn = on_turn
        progress("files", records.progress(loop.store, loop.plan_id, loop.repo).done, total)
        try:
            outcome = loop.run()
        except KgError as e:  # the endpoint or the graph failed: the run is kept, say how to go on
            raise type(e)(f"{e} — run {loop.run_id} is incomplete; continue it with "
                          f"`kg agent resume {loop.run_id}`") from e
        except KeyboardInterrupt:
            err.print(f"stopped: continue with `kg agent resume {loop.run_id}`", highlight=False)
            sys.exit(130)
        progress("files", outcome.done, total)  # files found on disk at the start of a session count too
    _show(outcome, as_json)


def _show(outcome: RunOutcome, as_json: bool) -> None:
    if as_json:
        emit_json(outcome.to_dict())
    else:
        out.print(f"{_status(outcome.status)} · {outcome.done}/{outcome.total} files · {outcome.iterations} turns"
                  f" · {outcome.reason} · run {outcome.run_id}", highlight=False)
        for path, problem in outcome.problems.items():
            out.print(f"  [yellow]not done:[/] {path} {problem}", highlight=False)
    if outcome.status != "completed":
        sys.exit(2)


def _status(status: str) -> str:
    color = {"completed": "green", "running": "cyan", "incomplete": "yellow"}.get(status, "red")
    return f"[{color}]{status}[/]"


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
