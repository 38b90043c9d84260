"""What the phrases signal's index costs: time to build and memory kept, on a file of nothing but string literals.

    .venv/bin/python -m bench.phrase_index [--megabytes 1.9] [--json]

The input is attack5 C6's: one Python file of lines `x = "<12 random 5-letter words>"` (1.9 MB by default, about
195,000 distinct shingles), written to a temporary folder. The index is kept for the life of a process (`kg mcp`,
the agent), so what it keeps matters more than its peak: printed are the build time, the shingles indexed, the
memory the index keeps (tracemalloc, after the build) and the peak while building, and the process's max RSS.
No graph needed. A benchmark that prints figures, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kg.retrieve.phrases import index_files  # noqa: E402


def literal_file(path: Path, megabytes: float, seed: int = 7) -> None:
    """Lines of `x = "…"`, each twelve words from a vocabulary of 5,000 random five-letter words."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5)) for _ in range(5000)]
    with path.open("w") as f:
        while f.tell() < megabytes * 1_000_000:
            f.write('x = "' + " ".join(rng.choice(vocab) for _ in range(12)) + '"\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=1.9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pk").mkdir()
        literal_file(root / "pk" / "big.py", args.megabytes)
        tracemalloc.start()
        began = time.perf_counter()
        index = index_files(root, ["pk/big.py"])
        seconds = time.perf_counter() - began
        kept, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    figures = {"megabytes_of_literals": args.megabytes, "shingles": len(index.files_of),
               "build_s": round(seconds, 2), "kept_mb": round(kept / 1e6, 1), "peak_mb": round(peak / 1e6, 1),
               "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000, 1)}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{figures['shingles']:,} shingles from {args.megabytes} MB of literals in {figures['build_s']} s "
          f"(tracemalloc slows the build); the index keeps {figures['kept_mb']} MB (peak {figures['peak_mb']} MB "
          f"while building); process max RSS {figures['max_rss_mb']} MB")


if __name__ == "__main__":
    main()
