"""What changed between two reviews, and what CI fails on: violations and cyclic dependencies a baseline lacks.

A stored review is the JSON of `kg review --json`, the HTML page (which embeds that JSON) or a baseline written by
`kg review --check --update-baseline`; all three carry `violations` and `cycles` in the same shape. A violation is
the same violation while its rule, source and target are (lines move); a cyclic dependency is an import dependency
between two modules of one cycle, so an edit that joins a new module to an old cycle counts as new.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import networkx as nx

from kg.errors import InputError
from kg.review.collect import FORMAT, Findings

_EMBEDDED = re.compile(r'<script type="application/json" id="kg-review-data">(.*?)</script>', re.S)


def load(path: Path) -> dict[str, Any]:
    """A stored review or baseline (JSON, or the HTML page with its embedded data)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from e
    if path.suffix.lower() in (".html", ".htm"):
        found = _EMBEDDED.search(text)
        if not found:
            raise InputError(f"{path} is not a kg review page (no embedded review data)")
        text = found.group(1).replace("<\\/", "</")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path} is not valid JSON (line {e.lineno}): write it with `kg review --json` or "
                         "`kg review --check --update-baseline`") from e
    if not isinstance(data, dict) or data.get("kind") != FORMAT:
        raise InputError(f"{path} is not a {FORMAT} review or baseline")
    return data


def baseline_of(findings: Findings, repo: str, revision: str | None) -> dict[str, Any]:
    """What `--update-baseline` stores: only what `--check` compares."""
    return {"kind": FORMAT, "repo": repo, "revision": revision, "violations": findings.violations,
            "cycles": [{"modules": g["modules"], "edges": g["edges"]} for g in findings.cycles]}


def _violation_key(v: dict[str, Any]) -> tuple[str, str, str]:
    return v["rule"], v["source"], v.get("target") or ""


def _cyclic(cycles: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["source"], e["target"]): {**e, "cycle": g["modules"]} for g in cycles for e in g["edges"]}


def _closers(cycles: list[dict[str, Any]]) -> Any:
    """A function giving a shortest cycle through an edge (source → target → … → source); each group's graph is
    built once, however many of its edges are asked about."""
    graphs: dict[str, nx.DiGraph] = {}
    for g in cycles:
        graph = nx.DiGraph([(e["source"], e["target"]) for e in g["edges"]])
        graphs.update(dict.fromkeys(g["modules"], graph))

    def closing(edge: dict[str, Any]) -> list[str]:
        graph = graphs.get(edge["source"])
        if graph is None:
            return [edge["source"], edge["target"], edge["source"]]
        return [edge["source"], *nx.shortest_path(graph, edge["target"], edge["source"])]

    return closing


def new_findings(baseline: dict[str, Any] | None, current: Findings) -> dict[str, Any]:
    """Violations and cyclic dependencies now present that the baseline lacks, and those it had that are gone."""
    before_v = {_violation_key(v): v for v in (baseline or {}).get("violations", [])}
    now_v = {_violation_key(v): v for v in current.violations}
    before_c = _cyclic((baseline or {}).get("cycles", []))
    now_c = _cyclic(current.cycles)
    closing = _closers(current.cycles)
    return {
        "new_violations": [now_v[k] for k in sorted(now_v.keys() - before_v.keys())],
        "fixed_violations": [before_v[k] for k in sorted(before_v.keys() - now_v.keys())],
        "new_cycles": [{**now_c[k], "closes": closing(now_c[k])}
                       for k in sorted(now_c.keys() - before_c.keys())],
        "fixed_cycles": [before_c[k] for k in sorted(before_c.keys() - now_c.keys())],
    }


def finding_lines(found: dict[str, Any]) -> list[str]:
    """One line per new violation or cyclic dependency, as `kg review --check` prints them."""
    lines = []
    for v in found["new_violations"]:
        where = f"{v['path']}:{v['line']}" if v.get("line") else v["path"]
        what = f"{v['source']} → {v['target']}" if v.get("target") else f"{v['source']} ({v['reason']})"
        lines.append(f"violation: {v['rule']}: {what} at {where}")
    for c in found["new_cycles"]:
        lines.append(f"cycle: {c['source']} → {c['target']} at {c['path']}:{c['line']} closes "
                     + " → ".join(c["closes"]))
    return lines


# ── two whole reviews: what got better or worse ───────────────────────────────────────────────────────────────


def compare(before: dict[str, Any], now: dict[str, Any], label: str) -> dict[str, Any]:
    """Counts side by side (with which direction is better), new and fixed violations and cyclic dependencies,
    modules added and removed, the biggest moves in size and coupling, and who entered or left the hotspots."""
    found = new_findings(before, Findings(now["violations"], now["cycles"]))
    old_modules = {m["module"]: m for m in before.get("modules", [])}
    new_modules = {m["module"]: m for m in now.get("modules", [])}
    both = old_modules.keys() & new_modules.keys()

    def count(name: str, old: float | None, new: float | None, lower_is_better: bool | None) -> dict[str, Any]:
        delta = None if old is None or new is None else round(new - old, 3)
        verdict = None
        if delta and lower_is_better is not None:
            verdict = "better" if (delta < 0) == lower_is_better else "worse"
        return {"name": name, "before": old, "now": new, "delta": delta, "verdict": verdict}

    def cycle_modules(r: dict[str, Any]) -> int:
        return sum(len(g["modules"]) for g in r["cycles"])

    counts = [
        count("modules", len(old_modules), len(new_modules), None),
        count("lines", before["scope"].get("loc"), now["scope"].get("loc"), None),
        count("module dependencies", before["scope"].get("dependencies"), now["scope"].get("dependencies"), True),
        count("import cycles", len(before["cycles"]), len(now["cycles"]), True),
        count("modules in cycles", cycle_modules(before), cycle_modules(now), True),
        count("cyclic dependencies", len(_cyclic(before["cycles"])), len(_cyclic(now["cycles"])), True),
        count("rule violations", len(before["violations"]), len(now["violations"]), True),
        count("dead-code candidates", before["dead_code"]["total"], now["dead_code"]["total"], True),
    ]

    def moves(metric: str, limit: int = 10) -> list[dict[str, Any]]:
        changed = [{"module": m, "before": old_modules[m][metric] or 0, "now": new_modules[m][metric] or 0}
                   for m in both if (old_modules[m][metric] or 0) != (new_modules[m][metric] or 0)]
        changed.sort(key=lambda r: (-abs(r["now"] - r["before"]), r["module"]))
        return changed[:limit]

    old_pkg = {p["package"]: p for p in before.get("coupling", [])}
    coupling = []
    for p in now.get("coupling", []):
        was = old_pkg.get(p["package"])
        if was and (was["ca"], was["ce"]) != (p["ca"], p["ce"]):
            coupling.append({"package": p["package"], "ca": [was["ca"], p["ca"]], "ce": [was["ce"], p["ce"]],
                             "instability": [was["instability"], p["instability"]]})
    coupling.sort(key=lambda r: (-abs(r["ca"][1] - r["ca"][0]) - abs(r["ce"][1] - r["ce"][0]), r["package"]))

    old_hot = [h["module"] for h in before.get("hotspots", [])]
    new_hot = [h["module"] for h in now.get("hotspots", [])]
    return {
        "since": label, "before_revision": before.get("revision"), "counts": counts, **found,
        "modules_added": sorted(new_modules.keys() - old_modules.keys()),
        "modules_removed": sorted(old_modules.keys() - new_modules.keys()),
        "grew": moves("loc"), "fan_in": moves("fan_in"), "fan_out": moves("fan_out"),
        "coupling": coupling[:15],
        "hot_entered": [m for m in new_hot if m not in old_hot], "hot_left": [m for m in old_hot if m not in new_hot],
    }


def summary_line(changes: dict[str, Any]) -> str:
    """What `compare` found, in one line for the terminal: `since HEAD~2: rule violations +1 (worse), dead-code
    candidates -3 (better), 1 module added, 2 grew` — the page and --json have the details."""
    parts = [f"{c['name']} {c['delta']:+g}" + (f" ({c['verdict']})" if c["verdict"] else "")
             for c in changes["counts"] if c["delta"] and c["name"] != "modules"]
    for key, what in (("modules_added", "added"), ("modules_removed", "removed")):
        if n := len(changes[key]):
            parts.append(f"{n} module{'s' * (n != 1)} {what}")
    if n := sum(1 for m in changes["grew"] if m["now"] > m["before"]):
        parts.append(f"{n} module{'s' * (n != 1)} grew")
    return f"since {changes['since']}: " + (", ".join(parts) if parts else "no change in what the review counts")
