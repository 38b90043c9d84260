"""`kg observe`: run a project's test suite under a tracer and store what actually ran.

Static resolution cannot see calls made through libraries (werkzeug's test client calling `Flask.__call__`),
templates or callbacks; running the tests can. The pieces, one job each:

- `tracer/kg_observe_tracer.py` — the pytest plugin that runs inside the project's own Python (no kg imports)
  and writes a raw trace: code objects, per-test coverage, caller → callee counts;
- `trace` — reads and checks those trace files (a truncated one is an error, not half an answer);
- `mapping` — maps code objects to the graph's modules and symbols, and hashes each one's own text;
- `runner` — builds the command and environment, runs the suite;
- `observer` — what a run writes (ObservedTest, TestScope, COVERS, observed CALLS) and what `--changed` re-runs.
"""
