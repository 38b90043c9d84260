"""Many edges between one pair of nodes (one function calling another thousands of times): prints figures, asserts
nothing.

A generated file whose one function makes N calls to the same target, one per line, is what a registration table,
a long test script or an agent's write can look like; kg keeps one edge per line, so the pair (caller, callee) gets
N relationships. For each N and shape this times, as a new `python -m kg ingest DIR --repo REPO --json` process:
the first ingest (one transaction: one file), the update after one more line (the file rewritten in one
transaction) and, with `--bulk`, a first ingest with SMALL_CHANGE more small files beside it (the CREATE path of a
bulk first ingest). Shapes: `external` (`os.getcwd()`, an External target), `local` (a function of the same file),
`import` (`import os` on every line: IMPORTS from the module).

    python -m bench.dense_edges --sizes 5000,10000,20000 --shapes external,local,import

Uses kg's own settings (KG_BOLT_PORT, KG_HTTP_PORT, KG_DATA_DIR, or NEO4J_URI) like `kg ingest`; repositories are
named `dense-<shape>-<N>` and forgotten afterwards. Prints /proc/loadavg before and after: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BODIES = {"external": ("import os\n\n\ndef go():\n", "    os.getcwd()\n"),
          "local": ("def target():\n    return 1\n\n\ndef go():\n", "    target()\n"),
          "import": ("", "import os\n")}


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def write_tree(root: Path, shape: str, n: int, bulk: int) -> Path:
    head, line = BODIES[shape]
    (root / "pk").mkdir(parents=True)
    dense = root / "pk" / "dense.py"
    dense.write_text(head + line * n)
    for i in range(bulk):
        (root / "pk" / f"filler_{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    return dense


def ingest(python: str, root: Path, repo: str, timeout: float) -> dict:
    began = time.perf_counter()
    try:
        done = subprocess.run([python, "-m", "kg", "ingest", str(root), "--repo", repo, "--json"], cwd=root,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"wall": round(time.perf_counter() - began, 2), "error": f"no end within {timeout:g} s"}
    wall = round(time.perf_counter() - began, 2)
    if done.returncode != 0:
        return {"wall": wall, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    report = json.loads(done.stdout)
    return {"wall": wall, "write": report["phases"].get("write"), "edges": report["edges"]}


def forget(python: str, repo: str) -> None:
    subprocess.run([python, "-m", "kg", "forget", repo], capture_output=True, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5000,10000,20000", help="calls per file, comma-separated")
    parser.add_argument("--shapes", default="external,local,import", help=f"from {', '.join(BODIES)}")
    parser.add_argument("--bulk", action="store_true", help="also time a bulk first ingest (CREATE path)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per kg process")
    parser.add_argument("--python", default=sys.executable, help="the Python whose kg runs")
    args = parser.parse_args()
    args.python = str(Path(args.python).absolute())  # the runs start in their temporary folders
    from kg.ingest.pipeline import SMALL_CHANGE

    print(f"load before: {loadavg()}", flush=True)
    for shape in args.shapes.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            runs = [("first", 0), ("bulk first", SMALL_CHANGE)] if args.bulk else [("first", 0)]
            for label, bulk in runs:
                repo = f"dense-{shape}-{n}" + ("-bulk" if bulk else "")
                forget(args.python, repo)
                with tempfile.TemporaryDirectory(prefix="kg-dense-") as tmp:
                    dense = write_tree(Path(tmp), shape, n, bulk)
                    got = ingest(args.python, Path(tmp), repo, args.timeout)
                    print(f"{shape:8} n={n:6} {label:10}: {json.dumps(got)}  load {loadavg()}", flush=True)
                    if not bulk and "error" not in got:
                        with dense.open("a") as handle:
                            handle.write(BODIES[shape][1])
                        got = ingest(args.python, Path(tmp), repo, args.timeout)
                        print(f"{shape:8} n={n + 1:6} {'update':10}: {json.dumps(got)}  load {loadavg()}", flush=True)
                forget(args.python, repo)
    print(f"load after: {loadavg()}", flush=True)


if __name__ == "__main__":
    main()
