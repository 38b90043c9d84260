"""In-process timing of kg's Python front end alone: parse every .py file of a corpus, then resolve every one.

    .venv/bin/python bench/parse_resolve.py [--corpus django] [--repeat 3] [--json]
    cd /tmp && OTHER/.venv/bin/python /path/to/bench/parse_resolve.py --corpus django   # another checkout's kg

No graph, no writes: the CPU time (this process's, so a busy shared machine disturbs it less than wall time)
`kg ingest` spends in parsing and resolution (a clean ingest does both for every file;
argument flows are part of resolution). The corpus is a pinned PyPI sdist from tests/sdists.py (the same versions as
bench/ingest.py), read into memory first. Each repeat runs in this process on fresh parses; the best and the median
are printed with the edge count, so two checkouts can be compared on the same machine in one sitting. It imports kg
from whatever environment runs it (run it from outside a kg checkout so that checkout's `kg/` does not shadow it).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {"flask": "3.0.3", "requests": "2.32.3", "django": "5.0.6", "click": "8.1.7"}


def corpus_files(name: str) -> dict[str, bytes]:
    return sdist_files(name, CORPORA[name])


def sdist_files(name: str, version: str, globs: tuple[str, ...] = ("*.py",)) -> dict[str, bytes]:
    """Every file of a pinned PyPI sdist matching `globs`, by path relative to its root, in path order."""
    sys.path.insert(0, str(ROOT))
    try:
        from tests.sdists import sdist
    finally:
        sys.path.pop(0)
    root = sdist(name, version)
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(path for glob in globs for path in root.rglob(glob))}


def run_once(files: dict[str, bytes]) -> dict[str, float | int]:
    from kg.ingest.languages import by_name

    lang = by_name("python")
    names = lang.module_names(list(files))
    gc.collect()
    began = time.process_time()
    parsed = [lang.parse(path, names[path], data) for path, data in files.items()]
    parse_s = time.process_time() - began
    project = {p.module: p for p in parsed}
    began = time.process_time()
    edges = sum(len(lang.resolve(p, project)) for p in parsed)
    resolve_s = time.process_time() - began
    return {"parse_s": parse_s, "resolve_s": resolve_s, "total_s": parse_s + resolve_s, "edges": edges}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="django", choices=sorted(CORPORA))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import kg

    files = corpus_files(args.corpus)
    runs = [run_once(files) for _ in range(args.repeat)]
    summary = {k: {"best": round(min(r[k] for r in runs), 3), "median": round(statistics.median(r[k] for r in runs), 3)}
               for k in ("parse_s", "resolve_s", "total_s")}
    out = {"kg": str(Path(kg.__file__).parent.parent), "corpus": args.corpus, "files": len(files),
           "edges": runs[-1]["edges"], "load": os.getloadavg(), **summary}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.corpus}: {len(files)} files, {out['edges']:,} edges (kg from {out['kg']})")
        for k in ("parse_s", "resolve_s", "total_s"):
            print(f"  {k:10} best {summary[k]['best']:.2f} s   median {summary[k]['median']:.2f} s")
        print(f"  load average {' '.join(f'{x:.2f}' for x in out['load'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
