"""One-file updates from the command line, process start included, in same-run pairs: prints figures, asserts nothing.

Each round appends a comment line to the next file of `--files` (rotating) and runs `python -m kg ingest ROOT
--repo REPO --json` as a new process for each side (A, then B; B first on odd rounds, so neither always runs on a
warmer cache), timing it from before the process starts to its exit. Both sides see the same edit of the same tree,
each in its own repository of the same graph (ingest the tree cleanly under each name first: the parser
fingerprint differs between two versions of kg, so they cannot share a repository).

    python -m bench.one_file_update --root .kg/dj --a .kg/main-venv/bin/python:dj --b .venv/bin/python:djb -n 9

Prints one line per run (wall, kg's own seconds, its phases, files read and parses loaded), then per side the p50
and min of the wall time and the ratio B/A per round with its median, and /proc/loadavg before and after.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_FILES = ("django/utils/text.py", "django/db/models/query.py", "django/http/request.py",
                 "django/core/handlers/base.py", "django/forms/fields.py")


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "unknown"


def run(python: str, root: Path, repo: str) -> dict:
    began = time.perf_counter()
    # run from the tree: `python -m` puts the working folder first on sys.path, and a kg checkout there would be
    # imported instead of the one installed for `python`
    done = subprocess.run([python, "-m", "kg", "ingest", ".", "--repo", repo, "--json"], cwd=root,
                          capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        return {"wall": wall, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    report = json.loads(done.stdout)
    return {"wall": wall, "seconds": report["seconds"], "written": report["written"],
            "hashed": report.get("hashed"), "loaded": report.get("loaded"),
            "phases": {k: round(v, 3) for k, v in report["phases"].items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="the tree both repositories were ingested from")
    parser.add_argument("--a", required=True, help="PYTHON:REPO of side A (the baseline)")
    parser.add_argument("--b", required=True, help="PYTHON:REPO of side B")
    parser.add_argument("-n", "--rounds", type=int, default=9)
    parser.add_argument("--files", default=",".join(DEFAULT_FILES), help="files to edit, relative to --root")
    args = parser.parse_args()
    sides = {"A": args.a.rsplit(":", 1), "B": args.b.rsplit(":", 1)}
    files = args.files.split(",")
    print(f"load before: {loadavg()}", flush=True)
    walls: dict[str, list[float]] = {"A": [], "B": []}
    ratios = []
    for round_ in range(args.rounds):
        target = args.root / files[round_ % len(files)]
        with target.open("a") as handle:
            handle.write(f"# kg bench edit {time.time_ns()}\n")
        order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
        got = {}
        for side in order:
            python, repo = sides[side]
            got[side] = run(python, args.root, repo)
            print(f"round {round_} {side} {target.relative_to(args.root)}: {json.dumps(got[side])}", flush=True)
        if all("error" not in got[s] for s in got):
            for side in got:
                walls[side].append(got[side]["wall"])
            ratios.append(got["B"]["wall"] / got["A"]["wall"])
    for side, values in walls.items():
        if values:
            print(f"{side} {' '.join(sides[side])}: wall p50 {statistics.median(values):.3f} s, "
                  f"min {min(values):.3f} s, n={len(values)}")
    if ratios:
        print(f"B/A per round: {' '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")
    print(f"load after: {loadavg()}")
    sys.exit(0)


if __name__ == "__main__":
    main()
