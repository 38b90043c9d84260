"""Which tests to run, from two kinds of evidence: what a static reading of the code reaches (the `tests_for`
query) and what running the suite showed (`kg observe`: the `tests_for_observed` query).

`combined` (the default) keeps every test observed running the symbols (fresh or stale: staleness is shown, not
hidden) and adds the tests static analysis reaches that no fresh observation speaks for: tests never observed,
tests whose file changed since, tests whose observed run failed or errored (it may have stopped before reaching
the symbol). A test observed fresh that did not run the symbols is left out even when a static path reaches it —
the run showed the path is not taken — and so is a "test" static analysis names in an unchanged test file whose
observed run never collected it (a function nested in a test, a helper named test_*); the answer says how many
were left out. `static`, `observed`
and `any` (either kind) take one side or both without that judgement.

Each row says which evidence gave it: `source` is static, observed or both, and `stale` is true when the observed
evidence behind it was recorded when the code it describes was different.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kg.errors import shorten

EVIDENCE = ("combined", "static", "observed", "any")
# Below this, a static test reaches the code only through a guess on its way (a method called on an object of unknown
# type, at most 0.5; a function handed to a call, 0.5; a call by a computed name): `kg export`'s default bar too.
SURE = 0.6
_PARAMS = re.compile(r"\[.*\]$")
_RANK = {"both": 0, "observed": 1, "static": 2}


@dataclass
class Selection:
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)


def combine(static: list[dict[str, Any]], observed: list[dict[str, Any]], observed_state: list[dict[str, Any]],
            evidence: str = "combined", observed_runs: int = 0) -> Selection:
    """Rows of both queries merged per test. `observed_state`: the `tests_observed` rows of the static tests
    (per observed test, and per test file with its staleness)."""
    if evidence not in EVIDENCE:
        raise ValueError(f"evidence must be one of {', '.join(EVIDENCE)}, not {shorten(evidence, 40)}")
    by_function = {row["test"]: row for row in static}
    rows: list[dict[str, Any]] = []
    seen_functions: set[str] = set()
    if evidence != "static":
        for o in observed:
            s = by_function.get(o["function"]) if evidence != "observed" else None
            seen_functions.add(o["function"])
            rows.append(_row(o["test"], "both" if s else "observed", o["stale"], s, o))
    notes: list[str] = []
    left_out = 0
    unobserved = 0
    if evidence != "observed":
        state: dict[str, list[dict[str, Any]]] = {}
        fresh_files = {r["path"] for r in observed_state if r["test"] is None and not r["file_stale"]}
        for r in observed_state:
            if r["test"] is not None:
                state.setdefault(r["function"], []).append(r)
        for s in static:
            if s["test"] in seen_functions:
                continue
            runs = state.get(s["test"], [])
            doubtful = any(r["file_stale"] or r["outcome"] in ("failed", "error") for r in runs)
            never_collected = not runs and s["test"].split("::", 1)[0] in fresh_files
            if evidence == "combined" and ((runs and not doubtful) or never_collected):
                left_out += 1
                continue
            unobserved += not runs
            rows.append(_row(s["test"], "static", None, s, None))
    rows.sort(key=lambda r: (_RANK[r["source"]], bool(r["stale"]), r["distance"] if r["distance"] is not None
                             else 99, -(r["calls"] or 0), r["test"]))
    stale = sum(1 for r in rows if r["stale"])
    if evidence != "static" and not observed_runs:
        notes.append("no observed data for this repository: `kg observe` runs its tests and records what each runs")
    if stale:
        notes.append(f"{stale} tests rest on stale observations (the code changed since `kg observe` saw them run; "
                     "`kg observe --changed` refreshes them)")
    if left_out:
        notes.append(f"{left_out} tests static analysis reaches were left out: observed fresh, they did not run "
                     "this code, or pytest did not collect them (--evidence any keeps them)")
    if evidence == "combined" and observed_runs and unobserved:
        notes.append(f"{unobserved} tests come from static analysis alone: they were not observed")
    return Selection(rows, notes)


def _row(test: str, source: str, stale: bool | None, s: dict[str, Any] | None,
         o: dict[str, Any] | None) -> dict[str, Any]:
    label = source + (" (stale)" if stale else "")
    hows = [h for h in ((o or {}).get("how"), (s or {}).get("how")) if h]
    return {"test": test, "source": source, "stale": stale, "evidence": label,
            "distance": s["distance"] if s else None, "confidence": s["confidence"] if s else None,
            "calls": o["calls"] if o else None, "outcome": o["outcome"] if o else None,
            "qname": (s or {}).get("qname"), "how": "; ".join(hows)}


def guessed(row: dict[str, Any]) -> bool:
    """A test only static analysis reaches, and only through a guess (below SURE): listed, but not worth a run line
    of its own (newuser5: a one-line edit of flask's url_for suggested 136 tests, most of them 0.5 guesses)."""
    return row["source"] == "static" and (row["confidence"] or 0.0) < SURE


def pytest_ids(rows: list[dict[str, Any]]) -> list[str]:
    """Node ids to pass to pytest, in order; a parametrized id is dropped when its whole function is selected."""
    whole = {r["test"] for r in rows if not _PARAMS.search(r["test"])}
    out: dict[str, None] = {}
    for r in rows:
        if r["test"] in whole or _PARAMS.sub("", r["test"]) not in whole:
            out[r["test"]] = None
    return list(out)
