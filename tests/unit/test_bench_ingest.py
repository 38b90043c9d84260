"""bench.ingest's GitNexus plumbing, without GitNexus: which pinned packages need installing, the command and the
environment GitNexus runs with, and what is read back from `/usr/bin/time -v` (run for real here) and from GitNexus'
output (lines as GitNexus 1.6.3 and 1.6.12 printed them). No database."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.ingest import (
    BENCH,
    gitnexus_command,
    gitnexus_env,
    gitnexus_log_facts,
    install_mismatches,
    parse_time_v,
    render_pairs,
)


def make_bench(root: Path, pins: dict[str, str], installed: dict[str, str], node_binary: bool) -> Path:
    """A bench folder: package.json pinning `pins`, node_modules with `installed` at their versions."""
    root.mkdir(exist_ok=True)
    (root / "package.json").write_text(json.dumps({"private": True, "dependencies": pins}))
    for name, version in installed.items():
        package = root / "node_modules" / name
        package.mkdir(parents=True)
        meta = {"name": name, "version": version}
        if name == "gitnexus":
            meta["bin"] = {"gitnexus": "dist/cli/index.js"}
        (package / "package.json").write_text(json.dumps(meta))
    if node_binary:
        (root / "node_modules" / "node" / "bin").mkdir(parents=True)
        (root / "node_modules" / "node" / "bin" / "node").write_text("")
    return root


def test_the_repository_pins_exact_versions_of_gitnexus_and_node() -> None:
    pins = json.loads((BENCH / "package.json").read_text())["dependencies"]
    assert set(pins) == {"gitnexus", "node"}
    for version in pins.values():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), version  # no range: the comparison names one version
    assert int(pins["node"].split(".")[0]) >= 22  # GitNexus 1.6.12 requires Node ^22.18


def test_an_older_gitnexus_or_a_missing_node_binary_needs_the_install(tmp_path: Path) -> None:
    pins = {"gitnexus": "1.6.12", "node": "22.23.3"}
    stale = make_bench(tmp_path / "stale", pins, {"gitnexus": "1.6.3"}, node_binary=False)
    assert install_mismatches(stale) == [
        "gitnexus 1.6.12 (have 1.6.3)", "node 22.23.3 (have none)",
        "node_modules/node/bin/node missing (the node package's install script did not run)"]
    no_binary = make_bench(tmp_path / "no-binary", pins, {"gitnexus": "1.6.12", "node": "22.23.3"}, node_binary=False)
    assert install_mismatches(no_binary) == [
        "node_modules/node/bin/node missing (the node package's install script did not run)"]
    ready = make_bench(tmp_path / "ready", pins, {"gitnexus": "1.6.12", "node": "22.23.3"}, node_binary=True)
    assert install_mismatches(ready) == []


def test_gitnexus_runs_on_the_pinned_node_with_its_own_script_and_that_node_first_on_path(tmp_path: Path) -> None:
    bench = make_bench(tmp_path, {"gitnexus": "1.6.12", "node": "22.23.3"},
                       {"gitnexus": "1.6.12", "node": "22.23.3"}, node_binary=True)
    node = tmp_path / "node_modules" / "node" / "bin" / "node"
    assert gitnexus_command(Path("/t/django"), ["--workers", "1"], bench) == [
        str(node), str(tmp_path / "node_modules" / "gitnexus" / "dist" / "cli" / "index.js"),
        "analyze", "/t/django", "--index-only", "--workers", "1"]
    env = gitnexus_env(tmp_path / "home", bench)
    assert env["PATH"].split(":")[0] == str(node.parent)
    assert env["HOME"] == str(tmp_path / "home")


@pytest.mark.skipif(not Path("/usr/bin/time").exists(), reason="GNU time is not installed (apt-get install time)")
def test_time_v_gives_the_peak_the_wall_time_and_the_signal_that_ended_a_process(tmp_path: Path) -> None:
    report = tmp_path / "time"
    ok = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), "sh", "-c", "sleep 0.2"])
    assert ok.returncode == 0
    fine = parse_time_v(report.read_text())
    assert fine["time_maxrss_kb"] > 0 and 0.15 <= fine["time_wall_s"] < 5 and "signal" not in fine
    crashed = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), "sh", "-c", "kill -SEGV $$"])
    assert crashed.returncode == 128 + 11
    assert parse_time_v(report.read_text())["signal"] == 11


def test_the_elapsed_time_reads_hours_minutes_and_seconds() -> None:
    assert parse_time_v("\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.5\n")["time_wall_s"] == 3723.5
    assert parse_time_v("\tElapsed (wall clock) time (h:mm:ss or m:ss): 2:36.72\n")["time_wall_s"] == 156.72


GITNEXUS_OUTPUT = """
  GitNexus Analyzer (1.6.12)
{"level":40,"time":1796151783092,"name":"gitnexus","msg":"callable-value-flow: candidate set exceeded the cap"}
{"level":40,"time":1796151783093,"name":"gitnexus","msg":"callable-value-flow: candidate set exceeded the cap"}
{"level":50,"time":1796151783094,"msg":"scope extraction failed: no Module scope found for 'tests/str/__init__.py'"}
Worker pool parsing failed, falling back to sequential: Worker 0 sub-batch timed out after 30s (chunk: 2811 items)
libc++abi: terminating due to uncaught exception of type Napi::Error

  Repository indexed successfully (109.6s)

  48,210 nodes | 131,007 edges | 612 clusters | 300 flows
"""


def test_gitnexus_output_gives_its_counts_its_own_seconds_and_the_trouble_it_reports() -> None:
    facts = gitnexus_log_facts(GITNEXUS_OUTPUT)
    assert (facts["nodes"], facts["edges"], facts["reported_s"]) == (48_210, 131_007, 109.6)
    assert facts["log_levels"] == {"40": 2, "50": 1}
    trouble = facts["trouble"]
    assert set(trouble) == {"worker timeouts", "sequential fallback", "native crash", "scope extraction failed"}
    assert trouble["worker timeouts"]["count"] == 1
    assert trouble["native crash"]["first"].startswith("libc++abi")


def test_a_clean_run_shows_no_trouble() -> None:
    facts = gitnexus_log_facts("  Repository indexed successfully (28.3s)\n\n  2,359 nodes | 4,253 edges\n")
    assert facts["trouble"] == {} and facts["log_levels"] == {} and facts["reported_s"] == 28.3


def _run(returncode: int, wall: float, peak_kb: int, **extra: object) -> dict[str, object]:
    return {"returncode": returncode, "wall_s": wall, "load_before": ["1.5", "1.0", "0.5"], "tree_peak_kb": peak_kb,
            "jvm_peak_kb": 1_000_000, "tree_with_jvm_peak_kb": peak_kb + 1_000_000, **extra}


def test_the_pairs_table_keeps_a_failed_pair_out_of_the_ratios_and_says_why() -> None:
    results = {
        "environment": {"when": "2026-12-01 19:00", "cpus": 2, "memory_gb": 23, "neo4j": "bolt://x",
                        "command": "python -m bench.ingest --pairs 2"},
        "kg_version": "abc1234",
        "gitnexus": {"version": "1.6.12", "node": "v22.23.3", "node_path": "bench/node_modules/node/bin/node",
                     "command": "NODE GITNEXUS analyze DIR --index-only", "native": {"@ladybugdb/core": "0.18.3"}},
        "gitnexus_args": [],
        "corpora_versions": {"django": "5.1.4"},
        "pairs": {"django": [
            {"kg": _run(0, 30.0, 400_000), "gitnexus": _run(0, 100.0, 2_000_000, trouble={})},
            {"kg": _run(0, 40.0, 400_000),
             "gitnexus": _run(139, 80.0, 1_000_000, signal=11,
                              trouble={"native crash": {"count": 1, "first": "Segmentation fault"}})},
        ]},
    }
    text = render_pairs(results)
    assert "GitNexus 1.6.12 on Node v22.23.3" in text and "NODE GITNEXUS analyze DIR --index-only" in text
    medians = next(line for line in text.splitlines() if line.strip().startswith("median"))
    assert "0.30" in medians and "0.27" not in medians  # 30/100 only: pair 2 failed
    assert "pair 2: kg exit 0, GitNexus exit 139 (signal 11) — no ratios" in text
    assert "pair 2 GitNexus' log: native crash ×1 (first: Segmentation fault)" in text


def test_the_installed_node_is_the_pinned_one_when_the_bench_is_installed() -> None:
    """Only where `python -m bench.ingest` has installed GitNexus: its Node binary runs and is the pinned version."""
    node = BENCH / "node_modules" / "node" / "bin" / "node"
    if not node.exists() or shutil.which("npm") is None:
        pytest.skip("bench/node_modules is not installed (python -m bench.ingest installs it on first use)")
    pinned = json.loads((BENCH / "package.json").read_text())["dependencies"]["node"]
    assert subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip() == f"v{pinned}"
