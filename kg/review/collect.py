"""Gather a review from the graph: every section from its named query in queries/review/ (plus networkx and git),
kept as plain data so it can be rendered to HTML, printed as JSON, stored and compared with a later review.

`collect` builds the whole review; `findings` only what CI checks (rule violations and import cycles), which needs
two queries and no git, so `kg review --check` stays fast on a large repository.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import InputError
from kg.navigate import answers
from kg.navigate.targets import pick_repo
from kg.review import analysis
from kg.review.history import history
from kg.review.rules import Architecture, matches
from kg.store import Store
from kg.unfinished import require_finished, unfinished_note

FORMAT = "kg-review/1"  # the `kind` of a stored review or baseline; bump when its shape changes incompatibly
MODEL = 2  # the graph model the review reads (kg.ingest.writer.MODEL): DEPENDS_ON and Module.package


@dataclass
class Query:
    """A named query with the parameters a section ran it with (what the report prints for Neo4j Browser)."""

    name: str
    params: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": self.params}


@dataclass
class Target:
    """The repository under review, as the graph knows it."""

    repo: str
    root: Path
    modules: int


@dataclass
class Findings:
    """What CI compares with a baseline: rule violations and the import dependencies that lie on cycles."""

    violations: list[dict[str, Any]]
    cycles: list[dict[str, Any]]
    queries: dict[str, list[Query]] = field(default_factory=dict)


@dataclass
class Review:
    repo: str
    root: str
    revision: str | None
    generated_at: str
    rules_file: str | None
    exclude: list[str]
    scope: dict[str, int]
    notes: list[str]
    modules: list[dict[str, Any]]
    cycles: list[dict[str, Any]]
    violations: list[dict[str, Any]]
    hotspots: list[dict[str, Any]]
    coupling: list[dict[str, Any]]
    dead_code: dict[str, Any]
    decisions: list[dict[str, Any]]
    queries: dict[str, list[Query]]
    graph: nx.DiGraph = field(repr=False, default_factory=nx.DiGraph)  # modules and dependencies, not stored
    changes: dict[str, Any] | None = None  # what got better or worse since an earlier review

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "graph"}
        data["queries"] = {k: [q.to_dict() for q in qs] for k, qs in self.queries.items()}
        return {"kind": FORMAT, **data}


def target(store: Store, repo: str | None) -> Target:
    """The repository to review: the one named, or the only one in the graph; refused when its graph predates
    DEPENDS_ON (an older kg wrote it)."""
    name = pick_repo(store, repo)
    row = next(r for r in store.read("repos") if r["repo"] == name)
    if (row.get("model") or 0) < MODEL:
        require_finished(store, name, "a review")  # a first ingest that died has no model yet either
        raise InputError(f"repository {name!r} was ingested by an older kg (no DEPENDS_ON yet): run "
                         f"`kg ingest {row['root'] or 'PATH'} --repo {name}` again, it rewrites it once")
    return Target(name, Path(row["root"] or "."), row["modules"])


def findings(store: Store, repo: str, rules: Architecture) -> Findings:
    """Rule violations and cycles: the part of a review CI checks."""
    exclude = rules.exclude_regexes()
    deps = Query("review/dependencies", {"repo": repo, "exclude": exclude})
    rows = store.read(deps.name, **deps.params)
    graph = nx.DiGraph()
    for d in rows:
        graph.add_edge(d["source"], d["target"], **d)
    cycles = analysis.cycles(analysis.import_graph(graph))
    violations, queries = _violations(store, repo, rules, exclude)
    return Findings(violations, cycles, {"cycles": [deps, Query("import_cycles", {"repo": repo, "max_length": 8,
                                                                                "limit": 50})],
                                         "violations": queries})


def _violations(store: Store, repo: str, rules: Architecture, exclude: list[str]) -> tuple[list[dict], list[Query]]:
    queries = []
    rows: list[dict[str, Any]] = []
    params = rules.dependency_params()
    if params["layers"] or params["forbidden"] or params["independent"]:
        queries.append(Query("review/rule_violations", {"repo": repo, "exclude": exclude, **params}))
    if rules.limits:
        queries.append(Query("review/limit_violations", {"repo": repo, "exclude": exclude, **rules.limit_params()}))
    for q in queries:
        rows += store.read(q.name, **q.params)
    return rows, queries


def collect(store: Store, repo: str | None, rules: Architecture, rules_file: Path | None = None, top: int = 25,
            with_history: bool = True) -> Review:
    """The whole review of one repository."""
    where = target(store, repo)
    name = where.repo
    exclude = rules.exclude_regexes()
    scope = {"repo": name, "exclude": exclude}
    notes: list[str] = []

    modules_q = Query("review/modules", scope)
    modules = store.read(modules_q.name, **modules_q.params)
    deps_q = Query("review/dependencies", scope)
    dependencies = store.read(deps_q.name, **deps_q.params)
    graph = analysis.dependency_graph(modules, dependencies)
    imports = analysis.import_graph(graph)
    cycles = analysis.cycles(imports)
    violations, rule_queries = _violations(store, name, rules, exclude)
    if not rules.has_rules:
        notes.append("no architecture rules: add .agent/architecture.yaml (see the README) to check layers, "
                     "forbidden dependencies and limits")

    revision, churn, commits = None, None, 0
    if with_history:
        past = history(where.root)
        revision, churn, commits = past.revision, past.churn, past.commits
        if past.note:
            notes.append(past.note)
    flagged: dict[str, list[str]] = {}
    for g in cycles:
        for m in g["modules"]:
            flagged.setdefault(m, []).append(f"in an import cycle of {len(g['modules'])} modules")
    for v in violations:
        reasons = flagged.setdefault(v["source"], [])
        if f"breaks {v['rule']}" not in reasons:
            reasons.append(f"breaks {v['rule']}")
    hot = analysis.hotspots(graph, churn, top, flagged, commits)

    coupling_q = Query("review/package_coupling", scope)
    coupling = store.read(coupling_q.name, **coupling_q.params)

    unfinished = unfinished_note(store, name)
    if unfinished:  # a graph missing edges: warn, and list no dead code rather than everything
        notes.insert(0, f"{unfinished} (dead code is not listed until then)")
    dead = None if unfinished else answers.dead_code(store, name, include_maybe=True, include_public=True,
                                                      limit=answers.FETCH_CAP)
    dead_rows = [r for r in dead.rows if not any(matches(x, r["path"]) for x in exclude)] if dead else []

    broken = {m for g in cycles for m in g["modules"]} | {v["source"] for v in violations}
    attention = sorted({h["path"] for h in hot} | {graph.nodes[m]["path"] for m in broken if m in graph})
    decisions_q = Query("review/decisions", {"repo": name, "paths": attention})
    decisions = store.read(decisions_q.name, **decisions_q.params) if attention else []

    excluded = where.modules - len(modules)
    return Review(
        repo=name, root=str(where.root), revision=revision,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        rules_file=str(rules_file) if rules_file else None, exclude=list(rules.exclude),
        scope={"modules": len(modules), "excluded": excluded, "packages": len({m["package"] for m in modules}),
               "dependencies": graph.number_of_edges(), "import_dependencies": imports.number_of_edges(),
               "loc": sum(m["loc"] or 0 for m in modules)},
        notes=notes, modules=modules, cycles=cycles, violations=violations, hotspots=hot, coupling=coupling,
        dead_code={"rows": dead_rows, "total": len(dead_rows),
                   "by_status": dict(Counter(r["status"] for r in dead_rows))},
        decisions=decisions,
        queries={"modules": [modules_q, deps_q], "cycles": [deps_q, Query("import_cycles", {
                     "repo": name, "max_length": 8, "limit": 50})],
                 "violations": rule_queries, "hotspots": [modules_q, deps_q], "coupling": [coupling_q],
                 "dead_code": [Query("dead_code", {"repo": name, "limit": answers.FETCH_CAP})],
                 "decisions": [decisions_q]},
        graph=graph,
    )
