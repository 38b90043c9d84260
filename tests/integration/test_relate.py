"""`kg relate`: reference-repo modules → planned files as INFORMS edges, found without an LLM, refined by one, and
read first by the agent's references slot and search_references. Real Neo4j; embeddings off (KG_EMBED_BACKEND
none) except where said. LLM used: agent.testing.ReplayServer replaying a recorded verdict, through the real
client (LLMClient), for the --llm pass."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from kg.agent.context import ContextBuilder
from kg.agent.plan import load_plan
from kg.agent.relate import relate
from kg.agent.testing import ReplayServer
from kg.agent.tokens import Tokenizer
from kg.agent.tools import Toolbox, tool_specs
from kg.agent.workspace import Workspace
from kg.ingest.pipeline import Ingestor

from kg.cli import cli
from kg.store import Store
from tests.integration.test_agent_helpers import REPO_ROOT, client
from tests.integration.test_agent_run import kg_env

PLAN = """# Shop service
A small order service.
- `svc/pricing.py` — discount rules applied to an order's line items
- `svc/storage.py` — persist orders as JSON on disk (uses: svc/pricing.py)
- `svc/report.py` — a monthly sales report
"""
VERDICT = {"content": json.dumps({"type": "partial_match", "confidence": 0.9, "aspects": ["apply_discounts"],
                                  "suggestion": "reuse the rule-function shape"})}


def _setup(store: Store, tmp_path: Path) -> Path:
    Ingestor(store, REPO_ROOT / "examples" / "tinyshop", repo="tinyshop", role="reference").run()
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    return plan


def test_relate_finds_informing_modules_and_the_agent_reads_them_first(store: Store, tmp_path: Path,
                                                                      monkeypatch) -> None:
    monkeypatch.setenv("KG_EMBED_BACKEND", "none")
    plan_file = _setup(store, tmp_path)
    ws = Workspace(tmp_path / "ws")
    report = relate(store, load_plan(plan_file), ws.default_repo)
    by_planned = {}
    for e in report.edges:
        by_planned.setdefault(e.planned, []).append(e)
    best = {p: es[0] for p, es in by_planned.items()}
    assert best["svc/pricing.py"].module == "shop/pricing.py" and best["svc/pricing.py"].type == "direct_match"
    assert best["svc/storage.py"].module == "shop/storage.py" and best["svc/storage.py"].confidence >= 0.8
    assert all(len(es) <= 3 for es in by_planned.values())
    assert "names" in best["svc/pricing.py"].method or "fulltext" in best["svc/pricing.py"].method
    stored = store.read_text("MATCH (m:Module)-[r:INFORMS]->(f:PlannedFile) RETURN m.path AS module, "
                             "f.path AS planned, r.type AS type, r.aspects AS aspects, r.method AS method")
    assert len(stored) == len(report.edges)
    assert {"module": "shop/pricing.py", "planned": "svc/pricing.py"}.items() <= next(
        r for r in stored if r["planned"] == "svc/pricing.py" and r["type"] == "direct_match").items()

    builder = ContextBuilder(store, ws.default_repo, report.plan, Tokenizer(), tool_specs())
    prompt = builder.build(builder.state(None), "svc/pricing.py")
    refs = prompt.segments["references"].text
    assert refs.startswith("## Reference material") and "tinyshop:`shop/pricing.py` (direct_match)" in refs

    tools = Toolbox(store, ws, ws.default_repo, lambda **_: "", lambda _: "", plan_id=report.plan)
    found = tools.execute("search_references", {"query": "storage orders"})
    assert found.text.splitlines()[0].startswith("tinyshop:shop/storage.py informs svc/storage.py (direct_match")

    again = relate(store, load_plan(plan_file), ws.default_repo)  # replaces, never piles up
    assert store.read_text("MATCH ()-[r:INFORMS]->() RETURN count(r) AS n")[0]["n"] == len(again.edges)


def test_relate_llm_pass_refines_and_is_cached(store: Store, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KG_EMBED_BACKEND", "none")
    plan_file = _setup(store, tmp_path)
    cache = tmp_path / "relate-llm.json"
    with ReplayServer([VERDICT]) as server:
        first = relate(store, load_plan(plan_file), "ws", client(server), cache)
        asked = len(server.served)
        second = relate(store, load_plan(plan_file), "ws", client(server), cache)
    assert first.llm_asked == asked == len(first.edges) > 0
    assert second.llm_asked == 0 and second.llm_cached == len(second.edges)
    assert {e.method for e in second.edges} == {"llm"} and {e.type for e in second.edges} == {"partial_match"}
    methods = store.read_text("MATCH ()-[r:INFORMS]->() RETURN DISTINCT r.method AS m, r.suggestion AS s")
    assert methods == [{"m": "llm", "s": "reuse the rule-function shape"}]


def test_relate_without_reference_repos_says_so_in_one_line(store: Store, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    env = {**kg_env(store.settings), "KG_EMBED_BACKEND": "none"}
    result = CliRunner().invoke(cli, ["relate", "--plan", str(plan), "--workspace", str(tmp_path / "ws")], env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().startswith("no reference repository in the graph")
    assert len(result.stdout.strip().splitlines()) == 1
    no_ws = CliRunner().invoke(cli, ["relate", "--plan", str(plan)], env=env)
    assert no_ws.exit_code == 2 and "--workspace" in no_ws.output


def test_relate_keeps_its_llm_cache_out_of_the_project(store: Store, tmp_path: Path, monkeypatch) -> None:
    """Attack report #1 (same class): `.kg/cache/relate-llm.json` in the project could be shipped by a repository —
    as forged verdicts, or as a link that the cache write follows onto any file. The cache now lives in the user's
    cache folder beside the parse caches; the project's `.kg/` is neither read nor written."""
    plan = _setup(store, tmp_path)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".kg" / "cache").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("PRECIOUS\n")
    (project / ".kg" / "cache" / "relate-llm.json").symlink_to(victim)
    monkeypatch.chdir(project)
    user_cache = tmp_path / "user-cache"
    env = {**kg_env(store.settings), "KG_EMBED_BACKEND": "none", "KG_CACHE_DIR": str(user_cache)}
    with ReplayServer([VERDICT]) as server:
        done = CliRunner().invoke(cli, ["relate", "--plan", str(plan), "--repo", "ws", "--llm", "--model", "replay",
                                        "--base-url", server.base_url, "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["llm_asked"] > 0
    assert victim.read_text() == "PRECIOUS\n"
    assert len(list(user_cache.glob("parses/*/relate-llm.json"))) == 1
