"""What the parse budget (ingest/languages/syntax.py `parse_within_budget`) costs and what it saves.

    .venv/bin/python -m bench.parse_budget [--corpus django] [--repeat 3] [--sizes 5000,20000] [--json]

Two figures, both in this process's CPU time (a busy shared machine disturbs it less than wall time):

- pathological input, per grammar: a file of N lines of an unterminated comment (`/* ` in JavaScript, TypeScript and
  Go; an unterminated `\"\"\"` in Python), parsed by a bare `Parser.parse(bytes)` (what kg did before the budget)
  and by kg's own `parse` of that language (budgeted). A bare parse past --bare-limit lines is not run (20,000 lines
  of JavaScript take ~100 s, of Go several minutes); its row says so.
- normal code: kg's `parse` of every .js and .py file of a pinned PyPI sdist (django: 111 JavaScript files, 1.3 MB,
  and 2,788 Python files), with the budget and with the budget replaced by a bare parse, interleaved in the same
  run, --repeat times; the ratio of the medians is the budget's overhead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {"django": "5.1.15", "flask": "3.0.3", "requests": "2.32.3"}
PATHOLOGICAL = {"a.js": "/* \n", "a.ts": "/* \n", "a.go": "/* \n", "a.py": '""" \n'}


@contextmanager
def unbudgeted() -> Iterator[None]:
    """kg's parsers with a bare `Parser.parse(bytes)` in place of the budgeted one (kg before the budget)."""
    from kg.ingest.languages import syntax
    from kg.ingest.languages.go import extract as go
    from kg.ingest.languages.javascript import extract as js
    from kg.ingest.languages.python import extract as py

    def bare(parser, source):  # noqa: ANN001, ANN202
        return parser.parse(source), ""

    modules = (syntax, go, js, py)
    saved = [m.parse_within_budget for m in modules]
    for m in modules:
        m.parse_within_budget = bare
    try:
        yield
    finally:
        for m, original in zip(modules, saved, strict=True):
            m.parse_within_budget = original


def corpus_files(name: str) -> dict[str, bytes]:
    from bench.parse_resolve import sdist_files

    return sdist_files(name, CORPORA[name], ("*.js", "*.py"))


def parse_all(files: dict[str, bytes]) -> tuple[float, int]:
    from kg.ingest.languages import language_for

    began = time.thread_time()
    symbols = sum(len(language_for(path).parse(path, "m", data).symbols) for path, data in files.items())
    return time.thread_time() - began, symbols


def pathological(sizes: list[int], bare_limit: int) -> list[dict]:
    from kg.ingest.languages import language_for

    rows = []
    for path, unit in PATHOLOGICAL.items():
        for n in sizes:
            source = (unit * n).encode()
            lang = language_for(path)
            began = time.thread_time()
            parsed = lang.parse(path, "m", source)
            budgeted = time.thread_time() - began
            bare = None
            if n <= bare_limit:
                with unbudgeted():
                    began = time.thread_time()
                    lang.parse(path, "m", source)
                    bare = time.thread_time() - began
            rows.append({"file": path, "lines": n, "bytes": len(source), "bare_s": bare, "budgeted_s": budgeted,
                         "gave_up": bool(parsed.gave_up)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="django", choices=sorted(CORPORA))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="2000,5000,20000", help="lines of the pathological files")
    parser.add_argument("--bare-limit", type=int, default=5000, help="largest pathological file parsed bare")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = pathological([int(n) for n in args.sizes.split(",")], args.bare_limit)
    files = corpus_files(args.corpus)
    budgeted, bare = [], []
    for _ in range(args.repeat):
        seconds, with_budget = parse_all(files)
        budgeted.append(seconds)
        with unbudgeted():
            seconds, without = parse_all(files)
        bare.append(seconds)
        assert with_budget == without, "the budget changed what a normal file parses to"
    normal = {"corpus": args.corpus, "files": len(files), "bytes": sum(map(len, files.values())),
              "budgeted_s": statistics.median(budgeted), "bare_s": statistics.median(bare)}
    normal["ratio"] = normal["budgeted_s"] / normal["bare_s"]
    out = {"pathological": rows, "normal": normal, "load": os.getloadavg()}
    if args.json:
        print(json.dumps(out))
        return 0
    print("pathological input (CPU s of kg's parse of one file):")
    for r in rows:
        bare_s = f"{r['bare_s']:8.2f}" if r["bare_s"] is not None else "  (not run)"
        print(f"  {r['file']:5} {r['lines']:>7,} lines  bare {bare_s}  budgeted {r['budgeted_s']:6.2f}"
              f"  {'gave up' if r['gave_up'] else 'parsed'}")
    print(f"normal code, {normal['corpus']}: {normal['files']:,} .js/.py files, {normal['bytes']:,} bytes, median of "
          f"{args.repeat}: budgeted {normal['budgeted_s']:.2f} s, bare {normal['bare_s']:.2f} s, "
          f"ratio {normal['ratio']:.3f}")
    print(f"load average {' '.join(f'{x:.2f}' for x in out['load'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
