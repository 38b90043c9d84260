"""Edge precision and recall of the Python resolver on the written-down expectations of tests/fixtures/python.

    .venv/bin/python bench/callgraph/fixtures.py [--fixtures DIR] [--json]

Every CALLS line of a case's expected.txt is a judgement: a positive line (`a -> b`) is an edge that must exist, a
negated line (`!a -> b`) one that must not. Met positive lines are true positives, unmet ones false negatives,
violated negative lines false positives: recall = TP / (TP + FN), precision = TP / (TP + FP). Precision here only
counts the mistakes the fixtures name (the micro-benchmark, `python -m bench.callgraph`, compares whole graphs).

It imports kg from whatever environment runs it and loads tests/expectations.py by path, so the same script
measures another checkout: `cd /tmp && OTHER/.venv/bin/python /path/to/bench/callgraph/fixtures.py` (run it from
outside a kg checkout, or that checkout's `kg/` folder shadows the installed one).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _expectations():
    spec = importlib.util.spec_from_file_location("kg_fixture_expectations", ROOT / "tests" / "expectations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(fixtures: Path) -> dict[str, dict[str, int]]:
    """Per case: tp, fn, fp counted over the CALLS lines of its expected.txt."""
    from kg.ingest.languages import by_name

    expectations = _expectations()
    language = by_name("python")
    out: dict[str, dict[str, int]] = {}
    for case in sorted(p for p in fixtures.iterdir() if p.is_dir() and (p / "expected.txt").exists()):
        parsed, edges = expectations.load_case(case, [language])
        unmet = set(expectations.unmet(case, parsed, edges))
        counts = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
        for raw in (case / "expected.txt").read_text().splitlines():
            line = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].strip()
            words = line.lstrip("!").split()
            if not line or words[0] in ("symbol", "IMPORTS", "INHERITS"):
                continue
            negated, failed = line.startswith("!"), raw in unmet
            counts[("fp" if failed else "tn") if negated else ("fn" if failed else "tp")] += 1
        out[case.name] = counts
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures" / "python")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    per_case = score(args.fixtures)
    total = {k: sum(c[k] for c in per_case.values()) for k in ("tp", "fn", "fp", "tn")}

    def ratio(num: int, den: int) -> float | None:
        return round(num / den, 3) if den else None

    rows = {name: {**c, "precision": ratio(c["tp"], c["tp"] + c["fp"]), "recall": ratio(c["tp"], c["tp"] + c["fn"])}
            for name, c in [*per_case.items(), ("overall", total)]}
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'case':24} {'pos met':>8} {'neg held':>9} {'precision':>9} {'recall':>7}")
    for name, r in rows.items():
        precision, recall = (r[k] if r[k] is not None else "–" for k in ("precision", "recall"))
        print(f"{name:24} {r['tp']:>4}/{r['tp'] + r['fn']:<3} {r['tn']:>5}/{r['tn'] + r['fp']:<3} "
              f"{precision:>9} {recall:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
