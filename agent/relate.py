"""Reference repositories ↔ the files a plan will create: `(:Module)-[:INFORMS]->(:PlannedFile)`.

For each planned file, its path and description are a task for kg.retrieve, asked of every repository ingested
with `--role reference`; the best modules become INFORMS edges with

    type        direct_match (same file name, or found strongly by several signals), partial_match (found well),
                utility (a helper module: util/helpers/common/compat, or imported by much of its repo),
                reference (found, less surely)
    confidence  0..1, from how high and by how many signals the module ranked
    aspects     what matched: symbol names, file names, words
    suggestion  one line on how to use it
    method      `names+fulltext+vectors` (the signals that found it), or `llm` after `--llm` refined it

`--llm` asks the configured model to confirm or correct each edge (type, confidence, aspects, suggestion); answers
are cached by the hash of what was asked (module text, planned file, model), so a re-run asks only about what
changed. The agent's references slot and its `search_references` tool read these edges before any full-text hit.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kg.agent import records
from kg.agent.llm import LLMClient
from kg.agent.plan import Plan

from kg.errors import KgError
from kg.retrieve.search import retrieve
from kg.store import Store

PER_FILE = 3  # edges kept per planned file
UTILITY = re.compile(r"(^|/)(utils?|helpers?|common|compat|_compat|tools|misc)(\.\w+|/)")
TYPES = ("direct_match", "partial_match", "reference", "utility")

LLM_SYSTEM = ("You judge whether a file of a reference repository helps write a planned file. Answer with JSON "
              'only: {"type": "direct_match"|"partial_match"|"reference"|"utility"|"none", "confidence": 0..1, '
              '"aspects": [short strings], "suggestion": one sentence}.')


@dataclass
class Edge:
    repo: str
    module: str  # path in the reference repo
    planned: str  # planned path
    type: str
    confidence: float
    aspects: list[str] = field(default_factory=list)
    suggestion: str = ""
    method: str = ""

    def row(self, plan_id: str) -> dict[str, Any]:
        return {"module": f"{self.repo}:{self.module}", "planned": f"{plan_id}:{self.planned}", "type": self.type,
                "confidence": round(self.confidence, 3), "aspects": self.aspects, "suggestion": self.suggestion,
                "method": self.method}


@dataclass
class RelateReport:
    plan: str
    references: list[str]
    edges: list[Edge] = field(default_factory=list)
    skipped: str = ""  # why nothing was related (no reference repository)
    llm_asked: int = 0
    llm_cached: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items() if k != "edges"}, "edges": [asdict(e) for e in self.edges]}


def relate(store: Store, plan: Plan, repo: str, llm: LLMClient | None = None,
           cache_file: Path | None = None) -> RelateReport:
    """Store INFORMS edges from reference modules to the plan's files (replacing the plan's earlier ones)."""
    store.apply_schema()
    plan_id = records.put_plan(store, plan, repo)
    references = [r["name"] for r in store.read("agent/reference_repos")]
    report = RelateReport(plan_id, references)
    if not references:
        report.skipped = ("no reference repository in the graph (ingest one with `kg ingest PATH --role "
                          "reference`): nothing to relate")
        return report
    for f in plan.files:
        text = f"{f.path}\n{f.description}"
        candidates: list[Edge] = []
        for ref in references:
            found = retrieve(store, ref, text)
            for ranked in found.files[:PER_FILE * 2]:
                candidates.append(_edge(ref, ranked, f.path, found.files[0].score))
        candidates.sort(key=lambda e: -e.confidence)
        report.edges += candidates[:PER_FILE]
    if llm is not None:
        _refine(store, report, plan, llm, cache_file)
    store.write("agent/informs_clear", plan=plan_id)
    store.write("agent/informs_put", [e.row(plan_id) for e in report.edges if e.type != "none"])
    return report


def _edge(repo: str, ranked: Any, planned: str, best: float) -> Edge:
    signals = sorted(ranked.signals)
    strength = ranked.score / best if best else 0.0
    confidence = min(1.0, 0.35 * strength + 0.15 * len(signals))
    same_name = Path(ranked.path).name == Path(planned).name
    if same_name and strength > 0.5:
        kind = "direct_match"
        confidence = max(confidence, 0.8)
    elif UTILITY.search(ranked.path):
        kind = "utility"
    elif strength > 0.7 and len(signals) >= 2:
        kind = "partial_match"
    else:
        kind = "reference"
    aspects = [r.split(" ", 1)[-1].split(" (")[0] for s in ("names", "fulltext", "vectors")
               for r in ranked.reasons.get(s, [])][:5]
    shown = ", ".join(f"`{a}`" for a in aspects[:3])
    suggestion = (f"read {repo}:{ranked.path}" + (f" for {shown}" if shown else "") +
                  (" and follow its layout" if kind == "direct_match" else ""))
    return Edge(repo, ranked.path, planned, kind, round(confidence, 3), aspects, suggestion, "+".join(signals))


def _refine(store: Store, report: RelateReport, plan: Plan, llm: LLMClient, cache_file: Path | None) -> None:
    """Ask the model about each edge; answers cached by the hash of the question (module content + planned file)."""
    cache: dict[str, Any] = {}
    if cache_file and cache_file.exists():
        cache = json.loads(cache_file.read_text(encoding="utf-8") or "{}")
    descriptions = {f.path: f.description for f in plan.files}
    hashes = {(r["repo"], r["path"]): r["hash"] for r in store.read(
        "agent/module_hashes", keys=[f"{e.repo}:{e.module}" for e in report.edges])}
    for e in report.edges:
        question = (f"Planned file `{e.planned}`: {descriptions.get(e.planned, '')}\n"
                    f"Reference file {e.repo}:`{e.module}` (found by {e.method}; matched: {', '.join(e.aspects)})")
        key = hashlib.sha1(f"{llm.config.model}\n{hashes.get((e.repo, e.module))}\n{question}".encode()).hexdigest()
        if key in cache:
            report.llm_cached += 1
        else:
            try:
                reply = llm.complete([{"role": "system", "content": LLM_SYSTEM}, {"role": "user", "content": question}])
            except KgError:
                continue  # the edges found without the model stand
            report.llm_asked += 1
            cache[key] = _judgement(reply.content)
        judged = cache[key]
        if judged:
            e.type = judged["type"]
            e.confidence = judged["confidence"]
            e.aspects = judged["aspects"] or e.aspects
            e.suggestion = judged["suggestion"] or e.suggestion
            e.method = "llm"
    if cache_file:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(cache, indent=1), encoding="utf-8")


def _judgement(text: str | None) -> dict[str, Any] | None:
    """The model's JSON verdict, or None when it gave none (the edge then keeps what the signals found)."""
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    try:
        data = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("type") not in (*TYPES, "none"):
        return None
    try:
        confidence = max(0.0, min(1.0, float(data.get("confidence", 0.5))))
    except (TypeError, ValueError):
        confidence = 0.5
    aspects = data.get("aspects") if isinstance(data.get("aspects"), list) else []
    return {"type": data["type"], "confidence": confidence, "aspects": [str(a) for a in aspects][:6],
            "suggestion": str(data.get("suggestion") or "")[:300]}
