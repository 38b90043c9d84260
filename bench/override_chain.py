"""Resolution of one file holding a chain of n classes, each overriding `m` with `return super().m()` (attack3 A4):
the case where `self.`/`super()` override lookups and the subclass rows of the argument flows grew as n².

    .venv/bin/python -m bench.override_chain [--sizes 500,1000,2000] [--kind super|self]

Prints this process's CPU seconds of `resolve_module` (parse excluded) and the edges per size. To compare with
another version, swap its ingest/languages/python/{edges,flows}.py in and run again in the same sitting.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def chain(n: int, kind: str) -> bytes:
    body = "return super().m()" if kind == "super" else "return self.k()"
    return ("class C0:\n    def m(self):\n        pass\n\n    def k(self):\n        pass\n" + "".join(
        f"\n\nclass C{i}(C{i - 1}):\n    def m(self):\n        {body}\n" for i in range(1, n))).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,1000,2000")
    parser.add_argument("--kind", default="super", choices=["super", "self"])
    args = parser.parse_args()
    from kg.ingest.languages.python import edges
    from kg.ingest.languages.python.extract import parse_module

    for n in (int(x) for x in args.sizes.split(",")):
        parsed = parse_module("p/h.py", "p.h", chain(n, args.kind))
        began = time.process_time()
        found, _flows = edges.resolve_module(parsed, {"p.h": parsed})
        seconds = time.process_time() - began
        print(f"{n:>6,} classes ({args.kind}): resolve {seconds:6.2f} s CPU, {len(found):,} edges", flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
