"""Agent benchmark: tokens per turn for a 5-file and a 50-file plan, and context assembly time on a django graph.

    KG_BOLT_PORT=… KG_DATA_DIR=… .venv/bin/python -m bench.agent [--skip-django] [--samples 50] [--json]

1. Flatness. Two synthetic plans (5 and 50 Python modules; module i uses modules i-1 and i-2 and calls their
   functions) are run to completion by the real loop against a replayed transcript (agent.testing.ReplayServer).
   It prints each run's prompt tokens per turn (reported usage: cl100k over the request, tools included) and the
   ratio of the medians. Target: the 50-file run's median at most 1.2× the 5-file run's.
2. Context assembly on a django-sized graph. django 5.0.6 (tests.sdists) is ingested as repo `bench-agent-django`
   (skipped when already there), a plan is put on it whose next file uses three heavy django modules, and the two
   context queries plus prompt assembly (`ContextBuilder.state` + `build`) are timed --samples times. Target: p50
   under 50 ms.

A benchmark that prints, not a test: it asserts nothing. Graph repos are named `bench-agent-*`; the synthetic
workspaces live in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from kg.agent.context import ContextBuilder
from kg.agent.guards import Limits
from kg.agent.llm import LLMClient, LLMConfig
from kg.agent.loop import AgentLoop, RunOptions
from kg.agent.plan import parse_markdown
from kg.agent.testing import ReplayServer
from kg.agent.tokens import Tokenizer
from kg.agent.tools import tool_specs
from kg.ingest.pipeline import Ingestor

from kg import settings as kg_settings
from kg.graph import open_graph
from kg.store import Store

DJANGO_REPO = "bench-agent-django"
DJANGO_USES = ["django/db/models/query.py", "django/http/request.py", "django/core/handlers/base.py"]


def synthetic(n: int) -> tuple[str, list[dict[str, Any]]]:
    """A plan of n modules (each using the two before it) and a transcript that writes each one."""
    lines = [f"# Synthetic {n}", f"A package of {n} modules, each building on the two before it.", ""]
    responses = []
    for i in range(n):
        uses = [f"pkg/mod_{j:03d}.py" for j in (i - 1, i - 2) if j >= 0]
        note = f" (uses: {', '.join(uses)})" if uses else ""
        lines.append(f"- `pkg/mod_{i:03d}.py` — step {i}: three functions that combine the earlier steps{note}")
        imports = "".join(f"from pkg.mod_{j:03d} import f{j}_a\n" for j in (i - 1, i - 2) if j >= 0)
        body = "".join(f"\n\ndef f{i}_{x}(value: int) -> int:\n    \"\"\"Step {i}, variant {x}.\"\"\"\n"
                       f"    return value + {ord(x)}" + "".join(f" + f{j}_a(value)" for j in (i - 1, i - 2) if j >= 0)
                       + "\n" for x in "abc")
        responses.append({"when": f"Next file: `pkg/mod_{i:03d}.py`", "tool": "write_file",
                          "arguments": {"path": f"pkg/mod_{i:03d}.py", "content": imports + body}})
    return "\n".join(lines) + "\n", responses


def flatness(store: Store, n: int) -> dict[str, Any]:
    plan_text, responses = synthetic(n)
    with tempfile.TemporaryDirectory() as tmp, ReplayServer(responses) as server:
        llm = LLMClient(LLMConfig("replay", server.base_url, "bench", backoff=0.01))
        began = time.perf_counter()
        loop = AgentLoop.start(store, llm, parse_markdown(plan_text), Path(tmp) / "ws", repo=f"bench-agent-{n}",
                               options=RunOptions(Limits(max_iterations=3 * n)))
        outcome = loop.run()
        seconds = time.perf_counter() - began
        prompts = [u["prompt_tokens"] for u in server.served]
    knowledge = [r["knowledge"] for r in store.read("agent/tokens_by_turn", run=outcome.run_id)]
    return {"files": n, "status": outcome.status, "turns": outcome.iterations, "seconds": round(seconds, 1),
            "prompt_tokens": prompts, "median": statistics.median(prompts), "max": max(prompts),
            "knowledge_median": statistics.median(knowledge), "run": outcome.run_id}


def django_context(store: Store, samples: int) -> dict[str, Any]:
    from tests.sdists import sdist

    tree = sdist("django", "5.0.6")
    began = time.perf_counter()
    report = Ingestor(store, tree, repo=DJANGO_REPO).run()
    ingest_seconds = time.perf_counter() - began
    plan_text = "# Django app\nA view layer on django.\n\n" + "".join(
        f"- `{p}` — existing django module\n" for p in DJANGO_USES) + (
        f"- `benchapp/views.py` — views over querysets and requests (uses: {', '.join(DJANGO_USES)})\n"
        "- `benchapp/urls.py` — routes to the views (uses: benchapp/views.py)\n")
    from kg.agent import records

    plan = parse_markdown(plan_text)
    plan_id = records.put_plan(store, plan, DJANGO_REPO)
    builder = ContextBuilder(store, DJANGO_REPO, plan_id, Tokenizer(), tool_specs())
    timings, prompt = [], None
    for _ in range(samples + 3):
        t0 = time.perf_counter()
        prompt = builder.build(builder.state(None))
        timings.append((time.perf_counter() - t0) * 1000)
    timings = sorted(timings[3:])  # the first builds warm the query plans
    return {"modules": report.files, "ingest_seconds": round(ingest_seconds, 1), "samples": samples,
            "p50_ms": round(statistics.median(timings), 1), "p90_ms": round(timings[int(0.9 * len(timings))], 1),
            "next_file": prompt.next_file.path, "segments": {k: s.tokens for k, s in prompt.segments.items()},
            "knowledge_modules": prompt.knowledge_paths, "degradation": prompt.degradation}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-django", action="store_true")
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with open_graph(kg_settings.load({})) as store:
        store.apply_schema()
        small, large = flatness(store, 5), flatness(store, 50)
        results["flatness"] = {"5": small, "50": large, "ratio": round(large["median"] / small["median"], 3)}
        if not args.skip_django:
            results["django"] = django_context(store, args.samples)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for r in (small, large):
        print(f"{r['files']:>3}-file plan: {r['status']} in {r['turns']} turns ({r['seconds']} s) · prompt tokens per "
              f"turn median {r['median']:.0f}, max {r['max']} · knowledge median {r['knowledge_median']:.0f}")
        print(f"      per turn: {r['prompt_tokens']}")
    print(f"median ratio 50/5: {results['flatness']['ratio']} (target ≤ 1.2)")
    if "django" in results:
        d = results["django"]
        print(f"django ({d['modules']} code files, ingested in {d['ingest_seconds']} s): context assembly p50 "
              f"{d['p50_ms']} ms, p90 {d['p90_ms']} ms over {d['samples']} builds (target p50 < 50 ms)")
        print(f"      next file {d['next_file']} · segments {d['segments']} · knowledge from "
              f"{len(d['knowledge_modules'])} modules · degradation {d['degradation']}")


if __name__ == "__main__":
    main()
