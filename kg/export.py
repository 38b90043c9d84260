"""Exports of the graph in formats other tools read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from kg.errors import InputError, shorten

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

CallgraphFormat = Literal["pycg", "json"]

# The pycg format leaves out what other call-graph tools do not call an edge: guesses (`name_only` candidates of an
# unknown receiver ≤ 0.5, functions handed to code kg cannot follow, `argument` 0.5, `dynamic` 0.2). Measured on
# flask, requests and click (bench/callgraph/README.md), keeping them costs more precision than it adds recall.
PYCG_MIN_CONFIDENCE = 0.6
# A `fixture` edge (a test to a pytest fixture it requests) is pytest's call, not the test's: impact and tests-for
# follow it, the pycg format does not (judged on flask's sample, they were all 25 of its wrong edges).
# Callees that are no function: a class whose constructor is not in the project (calling it runs none of the
# project's code), a module (`importlib.import_module`), a name kg could not resolve.
_NOT_FUNCTIONS = frozenset({"class", "module", "variable", "unresolved"})



def default_min_confidence(fmt: CallgraphFormat) -> float:
    return PYCG_MIN_CONFIDENCE if fmt == "pycg" else 0.0


def callgraph(store: Store, repo: str, fmt: CallgraphFormat = "pycg", min_confidence: float | None = None,
              evidence: str = "static") -> dict[str, Any]:
    """The call graph of `repo`, from static analysis (`evidence` static, the default), from the calls `kg observe`
    saw (observed) or both (all).

    pycg: `{"pkg.mod.Class.method": ["pkg.mod.helper", "<builtin>.len"], ...}` — the adjacency list PyCG and its
    successors print: every module, class, function, method and lambda (`pkg.mod.f.<lambda1>`) a key even without
    callees, callees sorted and unique, only functions, methods, lambdas, builtins (`<builtin>.len`,
    `<builtin>.str.join`) and code outside the project (`os.path.join`); by default at confidence ≥
    PYCG_MIN_CONFIDENCE. An observed call made through library frames (a test → werkzeug → `Flask.__call__`) is no
    direct call and stays out of it. json: the same keys, each call with its line, resolution and confidence (all of
    them by default; observed calls: `via` and `count`). A call of a decorated function is stored as the caller's
    call of the wrapper plus one of the function `through` the wrapper (so impact and tests-for follow each decorated
    function's own callers); pycg gives the latter back to the wrapper, as the call it makes.
    """
    if evidence not in ("static", "observed", "all"):
        raise InputError(f"evidence must be static, observed or all, not {shorten(evidence, 40)}")
    if min_confidence is None:
        min_confidence = default_min_confidence(fmt)
    rows = store.read("export/callgraph", repo=repo, min_confidence=min_confidence, evidence=evidence)
    if not rows:
        raise InputError(f"no repository named {repo!r} in the graph: ingest it first (`kg ingest PATH --repo {repo}`)")
    graph: dict[str, Any] = {}
    wrapped: dict[str, set[str]] = {}  # pycg: what wrappers call (kg keeps it on the calls of decorated names)
    for row in sorted(rows, key=lambda r: r["caller"]):
        calls = [{k: v for k, v in c.items() if v is not None} for c in row["calls"] if c["callee"] is not None]
        if fmt == "pycg":
            direct = {c["callee"] for c in calls if not c.get("through") and c.get("confidence", 1) >= min_confidence
                      and c.get("via") != "library" and c.get("callee_kind") not in _NOT_FUNCTIONS
                      and c.get("resolution") != "fixture"}
            for c in calls:
                if c.get("through") and c.get("callee_kind") not in _NOT_FUNCTIONS:
                    wrapped.setdefault(c["through"], set()).add(c["callee"])
            graph[row["caller"]] = sorted(direct | set(graph.get(row["caller"], [])))
        else:
            graph[row["caller"]] = {"kind": row["kind"], "calls": sorted(
                ({k: v for k, v in c.items() if k != "callee_kind"} for c in calls
                 if c.get("confidence", 1) >= min_confidence),
                key=lambda c: (c.get("line") or 0, c["callee"]))}
    for wrapper, callees in wrapped.items():
        graph[wrapper] = sorted(callees | set(graph.get(wrapper, [])))
    return graph
