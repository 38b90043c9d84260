"""The run loop: progress from the graph → prompt from the graph → one LLM call → one tool call → record → guards.

Nothing carries over between turns in memory that the graph does not also hold, so a run killed at any point is
resumed from the graph alone (`AgentLoop.resume`). The run is complete when the plan's files minus the files the
graph holds is empty, checked before every turn; what the model says about being done is ignored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kg.agent import memory, records
from kg.agent.context import Budget, ContextBuilder, Prompt, State
from kg.agent.errors import LLMError
from kg.agent.guards import Guard, Limits
from kg.agent.llm import LLMClient, LLMConfig, Reply
from kg.agent.plan import Plan
from kg.agent.summaries import SUMMARY_SYSTEM, Summary, parse_llm_summary, structural
from kg.agent.tokens import Tokenizer, encoding_for
from kg.agent.tools import MalformedCall, Toolbox, ToolResult, parse_arguments, tool_specs
from kg.agent.workspace import Workspace
from kg.ingest.pipeline import Ingestor

from kg.disk import require_free_space
from kg.errors import DiskFull
from kg.store import Store

RESULT_CHARS = 4000  # a turn's result as stored (the prompt cuts it further, by tokens)
GUIDED_WINDOW = 8


@dataclass
class RunOptions:
    limits: Limits = field(default_factory=Limits)
    budget: Budget = field(default_factory=Budget)
    summaries: str = "structural"  # or "llm"
    tool_choice: str = "auto"  # auto | required | a tool name
    guided: bool = False  # write_file's path limited to the next planned files (grammar-constrained small models)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | None) -> RunOptions:
        data = json.loads(text or "{}")
        return cls(Limits(**data.get("limits", {})), Budget(**data.get("budget", {})),
                   data.get("summaries", "structural"), data.get("tool_choice", "auto"), data.get("guided", False))


@dataclass
class TurnInfo:
    n: int
    tool: str
    args: str
    ok: bool
    result: str
    done: int
    total: int
    prompt_tokens: int
    degradation: str


@dataclass
class RunOutcome:
    run_id: str
    status: str
    reason: str
    iterations: int
    done: int
    total: int
    remaining: list[str]
    problems: dict[str, str] = field(default_factory=dict)  # remaining file → why it is not done (does not parse)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AgentLoop:
    def __init__(self, store: Store, llm: LLMClient, run_id: str, plan_id: str, workspace: Workspace, repo: str,
                 options: RunOptions, on_turn: Callable[[TurnInfo], None] | None = None) -> None:
        self.store = store
        self.llm = llm
        self.run_id = run_id
        self.plan_id = plan_id
        self.workspace = workspace
        self.repo = repo
        self.options = options
        self.on_turn = on_turn or (lambda info: None)
        self.tokenizer = Tokenizer(encoding_for(llm.config.model))
        self.context = ContextBuilder(store, repo, plan_id, self.tokenizer, tool_specs(), options.budget)
        self.ingestor = Ingestor(store, workspace.root, repo=repo)
        self.toolbox = Toolbox(store, workspace, repo, self._record_decision, self._after_write, plan_id)
        self.guard = Guard(options.limits)
        self.llm_seconds = 0.0  # over every session of the run
        self._turn_key = ""
        self._side_calls: list[dict[str, Any]] = []

    # ── starting and resuming ───────────────────────────────────────────────────────────────────────────────────

    @classmethod
    def start(cls, store: Store, llm: LLMClient, plan: Plan, workspace_dir: Path, repo: str | None = None,
              options: RunOptions | None = None, on_turn: Callable[[TurnInfo], None] | None = None) -> AgentLoop:
        workspace = Workspace(workspace_dir)
        repo = repo or workspace.default_repo
        store.apply_schema()
        plan_id = records.put_plan(store, plan, repo)
        run_id = records.new_run_id()
        options = options or RunOptions()
        records.put_run(store, run_id, plan_id, status="running", repo=repo, workspace=str(workspace.root),
                        model=llm.config.model, base_url=llm.config.base_url or "", options=options.to_json(),
                        max_tokens=llm.config.max_tokens, llm_timeout=llm.config.timeout,
                        iterations=0, done=0, total=len(plan.files), elapsed=0.0, llm_seconds=0.0, stall=0.0,
                        reason="", error="")
        records.retire_decisions(store, plan_id, run_id)
        return cls(store, llm, run_id, plan_id, workspace, repo, options, on_turn)

    @classmethod
    def resume(cls, store: Store, run_id: str, llm: LLMClient | None = None,
               on_turn: Callable[[TurnInfo], None] | None = None, **overrides: Any) -> AgentLoop:
        """Continue a run from what the graph holds: its plan, workspace, options, counters and last turns."""
        run = records.get_run(store, run_id)
        options = RunOptions.from_json(run.get("options"))
        if overrides:
            options.limits = Limits(**{**asdict(options.limits), **overrides})
        if llm is None:
            llm = LLMClient(LLMConfig.resolve(run.get("model"), run.get("base_url") or None,
                                              timeout=run.get("llm_timeout"), max_tokens=run.get("max_tokens")))
        loop = cls(store, llm, run_id, run["plan"], Workspace(Path(run["workspace"])), run["repo"], options, on_turn)
        loop.guard.iterations = run.get("iterations") or 0
        loop.guard.elapsed = run.get("elapsed") or 0.0
        loop.guard.stall = run.get("stall") or 0.0
        loop.llm_seconds = run.get("llm_seconds") or 0.0
        for turn in records.recent_calls(store, run_id):
            loop.guard.replay(f"{turn['tool']} {turn['args']}", bool(turn["ok"]))
        records.put_run(store, run_id, run["plan"], status="running", reason="", error="",
                        resumed=(run.get("resumed") or 0) + 1, options=options.to_json())
        return loop

    # ── the loop ────────────────────────────────────────────────────────────────────────────────────────────────

    def run(self) -> RunOutcome:
        try:
            self._sync_workspace()
            while True:
                state = self.context.state(self.run_id)
                if not state.progress.remaining:
                    return self._finish("completed", "every planned file exists", state.progress)
                if stop := self.guard.before_turn():
                    return self._finish(*stop, state.progress)
                require_free_space(self.store.settings, "run an agent turn")
                if stop := self._turn(state):
                    return self._finish(*stop, records.progress(self.store, self.plan_id, self.repo))
        except LLMError as e:
            self._finish("incomplete", str(e), records.progress(self.store, self.plan_id, self.repo), error=str(e))
            raise
        except DiskFull as e:  # refused before writing: the run stops cleanly, resumable once there is space
            self._finish("incomplete", str(e), records.progress(self.store, self.plan_id, self.repo), error="DiskFull")
            raise
        except KeyboardInterrupt:
            self._finish("incomplete", "stopped by the user", records.progress(self.store, self.plan_id, self.repo))
            raise
        except Exception as e:  # a bug or a lost graph: the run must not stay `running` forever
            self._finish("incomplete", f"crashed: {type(e).__name__}: {e}"[:300],
                         records.progress(self.store, self.plan_id, self.repo), error=type(e).__name__)
            raise

    def prompt(self, target: str | None = None) -> Prompt:
        """The prompt the next turn would send (or the one for `target`), exactly as built in `run`."""
        state = self.context.state(self.run_id)
        return self.context.build(state, target, tools=self._tools(state.progress))

    def _turn(self, state: State) -> tuple[str, str] | None:
        progress = state.progress
        began = time.perf_counter()
        n = self.guard.iterations + 1
        self._turn_key = f"{self.run_id}:{n}"
        self._side_calls = []
        tools = self._tools(progress)
        prompt = self.context.build(state, tools=tools)
        reply = self.llm.complete(prompt.messages, tools, self.options.tool_choice)
        tool, args, result = self._execute(reply)
        after = records.progress(self.store, self.plan_id, self.repo)
        seconds = time.perf_counter() - began
        llm_seconds = reply.seconds + sum(c["seconds"] for c in self._side_calls)
        target = result.wrote if result.wrote in {f.path for f in after.files} else (
            prompt.next_file.path if prompt.next_file else None)
        turn = {"key": self._turn_key, "n": n, "tool": tool, "args": args[:RESULT_CHARS], "ok": result.ok,
                "result": result.text[:RESULT_CHARS], "target": target, "degradation": prompt.degradation,
                "seconds": round(seconds, 4), "llm_seconds": round(llm_seconds, 4),
                "knowledge_paths": prompt.knowledge_paths}
        records.put_turn(self.store, self.run_id, self.plan_id, turn, self._ledger(prompt, reply, n, 0))
        memory.loaded(self.store, self.run_id, n, prompt.memory_loaded)
        for i, call in enumerate(self._side_calls, start=1):
            records.put_llm_call(self.store, self.run_id, self._turn_key, {**call, "id": f"{self._turn_key}:{i}"})
        self.llm_seconds += llm_seconds
        stop = self.guard.after_turn(f"{tool} {args}", result.ok, after.done > progress.done, seconds, llm_seconds)
        records.put_run(self.store, self.run_id, self.plan_id, iterations=self.guard.iterations, done=after.done,
                        total=after.total, remaining=[f.path for f in after.remaining],
                        elapsed=round(self.guard.elapsed, 3), stall=round(self.guard.stall, 3),
                        llm_seconds=round(self.llm_seconds, 3))
        self.on_turn(TurnInfo(n, tool, args, result.ok, result.text, after.done, after.total,
                              reply.usage.prompt_tokens or prompt.counted, prompt.degradation))
        return stop

    def _execute(self, reply: Reply) -> tuple[str, str, ToolResult]:
        """The one tool call of a turn; everything the model got wrong becomes an error result it will see."""
        if not reply.tool_calls:
            said = (reply.content or "").strip().replace("\n", " ")[:200]
            return "(none)", json.dumps({"content": said}), ToolResult(
                False, "no tool call: make exactly one tool call per turn. The run ends only when every planned "
                       "file exists" + (f" (you said: {said!r})" if said else "."))
        call = reply.tool_calls[0]
        extra = (f" Only the first of your {len(reply.tool_calls)} tool calls was executed: one call per turn."
                 if len(reply.tool_calls) > 1 else "")
        try:
            args = parse_arguments(call.name, call.arguments)
        except MalformedCall as e:
            return (call.name or "(unnamed)", call.arguments[:500],
                    ToolResult(False, f"malformed tool call: {e}.{extra}"))
        result = self.toolbox.execute(call.name, args)
        result.text += extra
        shown = {k: (v if k != "content" else f"<{len(v)} chars>") for k, v in args.items()}
        return call.name, records.args_text(shown) if call.name == "write_file" else records.args_text(args), result

    def _ledger(self, prompt: Prompt, reply: Reply, n: int, index: int) -> dict[str, Any]:
        usage = reply.usage
        prompt_tokens = usage.prompt_tokens if usage.reported else prompt.counted
        return {"id": f"{self.run_id}:{n}:{index}", "purpose": "turn", "model": self.llm.config.model,
                **prompt.ledger(), "prompt_counted": prompt.counted, "prompt_tokens": prompt_tokens,
                "completion_tokens": usage.completion_tokens, "cached_tokens": usage.cached_tokens,
                "total_tokens": usage.total_tokens if usage.reported else prompt_tokens + usage.completion_tokens,
                "overhead": prompt_tokens - prompt.counted, "usage_reported": usage.reported,
                "degradation": prompt.degradation, "seconds": round(reply.seconds, 4), "attempts": reply.attempts,
                "encoding": self.tokenizer.name}

    def _tools(self, progress: records.Progress) -> list[dict[str, Any]]:
        if not self.options.guided:
            return tool_specs()
        nxt = progress.next_file()
        paths = [f.path for f in progress.remaining if nxt is None or f.path != nxt.path]
        return tool_specs(([nxt.path] if nxt else []) + paths[: GUIDED_WINDOW - 1])

    def _finish(self, status: str, reason: str, progress: records.Progress, error: str = "") -> RunOutcome:
        # The turn's state (from the context query) knows what is done, not why the rest is not: ask once, here.
        problems = {f.path: f.problem for f in records.progress(self.store, self.plan_id, self.repo).remaining
                    if f.problem}
        records.put_run(self.store, self.run_id, self.plan_id, status=status, reason=reason, error=error,
                        iterations=self.guard.iterations, done=progress.done, total=progress.total,
                        remaining=[f.path for f in progress.remaining], elapsed=round(self.guard.elapsed, 3),
                        problems=[f"{path}: {problem}" for path, problem in problems.items()])
        return RunOutcome(self.run_id, status, reason, self.guard.iterations, progress.done, progress.total,
                          [f.path for f in progress.remaining], problems)

    # ── what tools call back into ───────────────────────────────────────────────────────────────────────────────

    def _sync_workspace(self) -> None:
        """Bring the graph in step with the workspace (files written before a crash, or by a person), and mark
        planned files that exist on disk but are not parsed by kg."""
        self.ingestor.run()
        progress = records.progress(self.store, self.plan_id, self.repo)
        records.mark_files(self.store, self.plan_id, [
            {"path": f.path, "status": "written" if self.workspace.exists(f.path) else "planned", "turn": None}
            for f in progress.files])

    def _after_write(self, path: str) -> tuple[bool, str]:
        """Ingest the workspace (incremental: just this file and what depends on it), then summarise the file.
        False when the file does not parse as its language: it stays remaining, and the model is told why."""
        self.ingestor.run()
        records.mark_files(self.store, self.plan_id, [{"path": path, "status": "written",
                                                       "turn": self.guard.iterations + 1}])
        planned = next((f for f in records.progress(self.store, self.plan_id, self.repo).files if f.path == path),
                       None)
        if planned and planned.problem:
            return False, (f"Not done: {path} {planned.problem}. Write it again, whole, as valid source; a file "
                           "counts only when it parses.")
        cards = self.store.read("agent/context_knowledge", repo=self.repo, plan=self.plan_id, next="", seeds=[path],
                                max_neighbours=0, max_symbols=24, max_methods=6, max_references=0)[0]["cards"]
        if not cards:
            return True, "Stored; kg does not parse this kind of file."
        description = planned.description if planned else ""
        try:
            summary = self._llm_summary(path) if self.options.summaries == "llm" else None
        except LLMError:  # the file is written and ingested: a failed summary call must not turn that into a failure
            summary = None
        summary = summary or structural(cards[0], description)
        self.store.write("agent/module_summary_put", repo=self.repo, path=path, summary=summary.to_props())
        if summary.kind == "llm":  # the model's reading of the file, offered to people as proposed knowledge
            memory.propose_knowledge(self.store, self.repo, self.run_id, path, summary.responsibility, summary.notes)
        self.store.write("memory/link_pending", plan=self.plan_id, repo=self.repo, path=path)
        return True, f"Ingested: {len(cards[0]['symbols'])} public symbols; {summary.kind} summary stored."

    def _llm_summary(self, path: str) -> Summary | None:
        _, text, _ = self.workspace.read(path)
        text, _ = self.tokenizer.cut(text, 3000)
        messages = [{"role": "system", "content": SUMMARY_SYSTEM}, {"role": "user", "content": f"{path}:\n{text}"}]
        reply = self.llm.complete(messages)
        counted = {"seg_system": self.tokenizer.count(SUMMARY_SYSTEM), "seg_file": self.tokenizer.count(text)}
        total = sum(counted.values())
        prompt_tokens = reply.usage.prompt_tokens if reply.usage.reported else total
        self._side_calls.append({
            "purpose": "summary", "model": self.llm.config.model, **counted, "prompt_counted": total,
            "prompt_tokens": prompt_tokens, "completion_tokens": reply.usage.completion_tokens,
            "cached_tokens": reply.usage.cached_tokens, "total_tokens": prompt_tokens + reply.usage.completion_tokens,
            "overhead": prompt_tokens - total, "usage_reported": reply.usage.reported, "degradation": "none",
            "seconds": round(reply.seconds, 4), "attempts": reply.attempts, "encoding": self.tokenizer.name,
            "file": path})
        return parse_llm_summary(path, reply.content)

    def _record_decision(self, text: str, rationale: str, paths: list[str], confidence: float | None) -> str:
        planned = {f.path for f in records.progress(self.store, self.plan_id, self.repo).files}
        outcome = memory.record_decision(self.store, self.repo, self.plan_id, self.run_id, planned, text, rationale,
                                         paths, confidence)
        return memory.outcome_text(outcome, self.context.memory.threshold)
