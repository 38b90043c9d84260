"""How long `kg server start` takes: a first start on a fresh data folder, then warm restarts of the same store.

Prints figures; asserts nothing. Runs the real `kg` command on free ports with a data folder in a temporary
directory (the launcher build is reused; build it once beforehand with `kg server start` if it never ran here).

    .venv/bin/python -m bench.server                 # 3 rounds: first start + 2 warm restarts each
    .venv/bin/python -m bench.server --rounds 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.ports import free_ports


def kg(*args: str, env: dict[str, str]) -> tuple[float, dict]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kg", *args, "--json"], env=env, capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - began, json.loads(done.stdout) if done.stdout.strip() else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=2, help="warm restarts per round")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    first, warm = [], []
    with tempfile.TemporaryDirectory(prefix="kg-bench-server-") as tmp:
        for n in range(args.rounds):
            bolt, http = free_ports(2)
            env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "KG_BOLT", "KG_HTTP"))}
            env |= {"KG_DATA_DIR": str(Path(tmp) / f"neo4j-{n}"), "KG_BOLT_PORT": str(bolt),
                    "KG_HTTP_PORT": str(http), "XDG_STATE_HOME": str(Path(tmp) / "state")}
            try:
                seconds, _ = kg("server", "start", env=env)
                first.append(seconds)
                for _ in range(args.warm):
                    kg("server", "stop", env=env)
                    seconds, _ = kg("server", "start", env=env)
                    warm.append(seconds)
            finally:
                subprocess.run([sys.executable, "-m", "kg", "server", "stop"], env=env, capture_output=True)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    figures = {"first_start_s": [round(s, 1) for s in first], "warm_start_s": [round(s, 1) for s in warm],
               "first_start_median_s": round(statistics.median(first), 1),
               "warm_start_median_s": round(statistics.median(warm), 1) if warm else None,
               "loadavg_after": load, "cores": os.cpu_count()}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"first start (fresh data folder): median {figures['first_start_median_s']} s  {figures['first_start_s']}")
    print(f"warm start (same store):         median {figures['warm_start_median_s']} s  {figures['warm_start_s']}")
    print(f"whole `kg server start` command, {os.cpu_count()} cores, load average after: {' '.join(load)}")


if __name__ == "__main__":
    main()
