"""One-file updates under `kg ingest --watch`: the time from writing a file to the watcher's report of it, first edit
included. Prints figures, asserts nothing.

Starts `python -m kg ingest . --repo REPO --watch --json` in the tree (ingest it cleanly under that name first),
waits for the start run's report and `--settle` seconds more (the watcher loads the project index after it), then
appends a comment line to the next file of `--files` every `--gap` seconds and times each edit until its report.

    python -m bench.watch_update --root .kg/dj --python .venv/bin/python --repo djb -n 7
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import time
from pathlib import Path

from bench.one_file_update import DEFAULT_FILES, loadavg


def next_report(stream) -> dict:  # noqa: ANN001 — the watcher's stdout
    """The next JSON report (kg prints each indented: it ends with a `}` line of its own)."""
    lines = []
    for line in stream:
        lines.append(line)
        if line.rstrip("\n") == "}":
            return json.loads("".join(lines))
    raise EOFError("the watcher stopped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("-n", "--edits", type=int, default=7)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--gap", type=float, default=2.0)
    parser.add_argument("--files", default=",".join(DEFAULT_FILES))
    args = parser.parse_args()
    files = args.files.split(",")
    print(f"load before: {loadavg()}", flush=True)
    watcher = subprocess.Popen([args.python, "-m", "kg", "ingest", ".", "--repo", args.repo, "--watch", "--json"],
                               cwd=args.root, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        began = time.perf_counter()
        start = next_report(watcher.stdout)
        print(f"start run: {time.perf_counter() - began:.2f} s to its report, kg says {start['seconds']} s, "
              f"written {start['written']}", flush=True)
        time.sleep(args.settle)
        times = []
        for edit in range(args.edits):
            target = args.root / files[edit % len(files)]
            written = time.perf_counter()
            with target.open("a") as handle:
                handle.write(f"# kg watch bench edit {time.time_ns()}\n")
            report = next_report(watcher.stdout)
            took = time.perf_counter() - written
            times.append(took)
            print(f"edit {edit} {target.relative_to(args.root)}: {took * 1000:.0f} ms from write to report; kg "
                  f"{report['seconds'] * 1000:.0f} ms, loaded {report.get('loaded')}, "
                  f"phases {json.dumps(report['phases'])}", flush=True)
            time.sleep(args.gap)
        print(f"p50 {statistics.median(times) * 1000:.0f} ms, first {times[0] * 1000:.0f} ms, "
              f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms, n={len(times)}")
    finally:
        os.killpg(watcher.pid, signal.SIGINT)
        watcher.wait(timeout=30)
    print(f"load after: {loadavg()}")


if __name__ == "__main__":
    main()
