"""attack5 C3: a file tree-sitter crawls on (an unterminated `/*`) no longer holds `kg ingest` for minutes. Its parse
stops at the CPU budget, the file is listed as skipped with a reason that says what to do, its module stays with no
symbols, and the graph equals a clean ingest. Real files, the real test Neo4j, `kg ingest` through click's runner;
the budget is made small so that the test does not wait for the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.languages import syntax
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg.cli import cli
from kg.store import Store
from tests.graph_snapshot import snapshot

GOOD = "export function hello() {\n  return 1;\n}\n"
CRAWL = "/* \n" * 3000  # about a second of CPU for tree-sitter-javascript, twenty times this test's budget


def symbols(store: Store, repo: str) -> set[str]:
    return {r["q"] for r in store.read_text("MATCH (s:Symbol {repo: $repo}) RETURN s.qname AS q", repo=repo)}


def test_a_file_over_the_parse_budget_is_skipped_with_a_reason_and_the_graph_stays_right(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "PARSE_SECONDS", 0.05)
    monkeypatch.setattr(syntax, "PARSE_SECONDS_PER_BYTE", 0.0)
    work = tmp_path / "cm"
    (work / "pk").mkdir(parents=True)
    (work / "pk" / "a.py").write_text("def hi():\n    return 1\n")
    cm = work / "pk" / "cm.js"
    cm.write_text(GOOD)
    kept = Ingestor(store, work, repo="inc", cache_dir=tmp_path / "cache")
    assert kept.run().skipped == []
    assert any(q.endswith("hello") for q in symbols(store, "inc"))

    cm.write_text(GOOD + CRAWL)
    report = kept.run()
    (reason,) = [r for p, r in report.skipped if p == "pk/cm.js"]
    assert reason.startswith("parsing gave up after") and reason.endswith("leave it out with --exclude")
    assert "pk/cm.js" not in report.syntax_errors  # listed once, as skipped
    assert not any(q.endswith("hello") for q in symbols(store, "inc")), "the old symbols of the file stayed"
    module = store.read_text("MATCH (m:Module {repo: 'inc', path: 'pk/cm.js'}) "
                             "RETURN m.syntax_errors AS e, m.loc AS loc")
    assert module == [{"e": 1, "loc": 3003}]
    GraphWriter(store, "clean").forget_repo()
    Ingestor(store, work, repo="clean").run()
    assert snapshot(store, "inc") == snapshot(store, "clean")

    s = store.settings
    env = {"KG_BOLT_PORT": str(s.bolt_port), "KG_HTTP_PORT": str(s.http_port), "KG_DATA_DIR": str(s.data_dir),
           "KG_CACHE_DIR": str(tmp_path / "cli-cache")}
    shown = CliRunner().invoke(cli, ["ingest", str(work), "--repo", "cli"], env=env)
    assert shown.exit_code == 0, shown.output
    line = next(x for x in shown.output.splitlines() if "pk/cm.js" in x and "gave up" in x)
    assert "--exclude" in line
    done = CliRunner().invoke(cli, ["ingest", str(work), "--repo", "cli2", "--json"], env=env)
    assert {"path": "pk/cm.js", "reason": reason} in json.loads(done.output)["skipped"]
