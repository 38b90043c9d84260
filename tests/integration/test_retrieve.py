"""From a task to context against the real Neo4j with the real model (all-MiniLM-L6-v2 as int8 ONNX, installed
by `kg[embed]`): each signal alone, the fusion, incremental embeddings, a model change, budgets and degradation,
bad input, the CLI and the MCP tool. LLM used: none."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from kg.ingest.pipeline import Ingestor
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.cli import cli
from kg.errors import InputError
from kg.retrieve import embed, vectors
from kg.retrieve.config import Budget, Orchestrator, Strategy
from kg.retrieve.context import build
from kg.retrieve.search import retrieve
from kg.settings import Settings
from kg.store import Store
from tests.integration.test_agent_run import kg_env
from tests.sdists import sdist

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"
MODEL = embed.load("onnx")
needs_model = pytest.mark.skipif(isinstance(MODEL, embed.Missing), reason=f"no embedding model: "
                                 f"{getattr(MODEL, 'reason', '')} (make setup installs it)")


def _shop(store: Store, tmp_path: Path, embedded: bool = True) -> Path:
    root = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, root)
    Ingestor(store, root, repo="shop").run()
    if embedded:
        vectors.sync(store, "shop", MODEL)  # type: ignore[arg-type]
    return root


@needs_model
def test_each_signal_finds_the_file_alone_and_the_fusion_agrees(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path)
    names = retrieve(store, "shop", "Cart.checkout raises ValueError", signals=("names",), embedder=MODEL)
    assert names.paths()[0] == "shop/cart.py"
    assert "method shop.cart.Cart.checkout" in names.files[0].reasons["names"]
    words = retrieve(store, "shop", "the discounts applied to an order", signals=("fulltext",), embedder=MODEL)
    assert words.paths()[0] == "shop/pricing.py"
    meaning = retrieve(store, "shop", "persist purchases to a json file on disk", signals=("vectors",),
                       embedder=MODEL)
    assert meaning.paths()[0] == "shop/storage.py"
    fused = retrieve(store, "shop", "After checkout the order total ignores the coupon percent", embedder=MODEL)
    assert set(fused.rankings) == {"names", "fulltext", "phrases", "vectors", "graph"} and not fused.missing
    assert fused.paths()[0] in ("shop/cart.py", "shop/pricing.py")
    assert fused.files[0].symbols  # the symbols that matched, for the code section


def test_a_plain_word_that_names_a_module_is_not_shown_as_a_file_the_task_named(store: Store, tmp_path: Path) -> None:
    """newuser5 #5: the word "session" of a report was shown as `names: file src/flask/sessions.py`, as if the
    report had named the file. A plain word says which word it was; a file the task writes keeps `file …`."""
    _shop(store, tmp_path, embedded=False)
    none = embed.load("none")
    word = retrieve(store, "shop", "the pricing is wrong after a refund", signals=("names",), embedder=none)
    assert word.paths()[0] == "shop/pricing.py"
    assert word.files[0].reasons["names"] == ['the word "pricing" names shop/pricing.py']
    named = retrieve(store, "shop", "shop/pricing.py is wrong after a refund", signals=("names",), embedder=none)
    assert "file shop/pricing.py" in named.files[0].reasons["names"]


@needs_model
def test_embeddings_are_incremental_by_content(store: Store, tmp_path: Path) -> None:
    root = _shop(store, tmp_path)
    again = vectors.sync(store, "shop", MODEL)  # type: ignore[arg-type]
    assert again.total == 0 and again.considered > 20
    pricing = root / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n\ndef loyalty_bonus(points: int) -> int:\n"
                       '    """Cents off for loyalty points."""\n    return points // 10\n')
    report = Ingestor(store, root, repo="shop").run()
    assert report.changed == ["shop/pricing.py"]
    step = vectors.sync(store, "shop", MODEL, paths=report.changed)  # type: ignore[arg-type]
    assert step.embedded == {"Symbol": 1, "Module": 1}  # the new function, and its module's list of names
    found = retrieve(store, "shop", "bonus for loyalty points", signals=("vectors",), embedder=MODEL)
    assert found.files[0].path == "shop/pricing.py" and "shop.pricing.loyalty_bonus" in found.files[0].symbols


@needs_model
def test_a_stale_vector_on_a_node_not_embedded_now_is_forgotten(store: Store, tmp_path: Path) -> None:
    """A repository stepped through many ingests must rank as one ingested fresh: a vector an earlier rule left on
    a test function (tests are not embedded) is removed by the next sync and no longer ranks."""
    _shop(store, tmp_path)
    key = "shop:tests.test_cart.test_bulk_discount"
    assert store.read_text(f"MATCH (s:Symbol {{key: '{key}'}}) RETURN s.embedding IS NULL AS bare") == [{"bare": True}]
    store.write("retrieve/embed_put_symbols", [{"key": key, "vector": MODEL.embed(["bulk discount"])[0],
                                                "embed_key": "old"}])
    before = retrieve(store, "shop", "bulk discount", signals=("vectors",), embedder=MODEL)
    assert "tests/test_cart.py" in before.paths()
    report = vectors.sync(store, "shop", MODEL)  # type: ignore[arg-type]
    assert report.dropped == 1 and report.total == 0
    after = retrieve(store, "shop", "bulk discount", signals=("vectors",), embedder=MODEL)
    assert "tests/test_cart.py" not in after.paths() and after.paths()


def test_a_name_counts_once_per_file_however_many_symbols_carry_it(store: Store, tmp_path: Path) -> None:
    """Five `run` methods in one file are one mention of `run`, not five: the file defining both names the report
    mentions (`run` and `prepare_job`) ranks first."""
    root = tmp_path / "jobs"
    root.mkdir()
    (root / "runners.py").write_text("".join(f"class R{i}:\n    def run(self):\n        return {i}\n\n\n"
                                             for i in range(5)))
    (root / "job.py").write_text("def run():\n    return prepare_job()\n\n\ndef prepare_job():\n    return 1\n")
    (root / "other.py").write_text("def unrelated():\n    return 2\n")
    Ingestor(store, root, repo="jobs").run()
    found = retrieve(store, "jobs", "run() crashes inside prepare_job()", signals=("names",),
                     embedder=embed.load("none"))
    assert found.paths()[:2] == ["job.py", "runners.py"]


def test_the_bodies_signal_finds_code_by_what_it_does_and_rereads_only_changed_files(store: Store,
                                                                                    tmp_path: Path) -> None:
    """A report naming nothing of the file to fix still shares words with the code that must change: the bodies
    signal ranks the file whose function body uses them (names, signature and docstring say nothing), with the
    repository's own statistics; an edit is re-read from disk, a deleted file forgotten, a test file left out."""
    root = tmp_path / "feeds"
    root.mkdir()
    (root / "fetch.py").write_text("def pull(url):\n    conn = open_socket(url)\n"
                                   "    return conn.read_chunked(timeout_seconds=30)\n")
    (root / "render.py").write_text("def draw(items):\n    return '<ul>' + ''.join(items) + '</ul>'\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_fetch.py").write_text("def test_pull():\n    assert read_chunked_timeout_seconds\n")
    Ingestor(store, root, repo="feeds").run()
    none = embed.load("none")
    found = retrieve(store, "feeds", "reading a chunked response never times out", signals=("bodies",),
                     embedder=none)
    assert found.paths() == ["fetch.py"]
    assert found.files[0].reasons["bodies"] == ["function fetch.pull (body)"]
    assert set(found.ms) == {"bodies"} and found.to_dict()["ms"]["bodies"] >= 0  # what each signal took
    (root / "render.py").write_text("def draw(items):\n    # a chunked list: never read past the timeout\n"
                                    "    return '<ul>' + ''.join(items) + '</ul>'\n")
    (root / "fetch.py").unlink()
    Ingestor(store, root, repo="feeds").run()
    again = retrieve(store, "feeds", "reading a chunked response never times out", signals=("bodies",),
                     embedder=none)
    assert again.paths() == ["render.py"]
    shutil.rmtree(root)
    moved = retrieve(store, "feeds", "chunked timeout", signals=("bodies",), embedder=none)
    assert not moved.files and "not on disk" in moved.missing["bodies"]


@needs_model
def test_a_vector_index_of_another_dimension_is_rebuilt(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    store.write_statements("retrieve/vector_indexes_drop")
    store.write_statements("retrieve/vector_indexes_create", dims=8)  # as an older, smaller model left it
    store.write("retrieve/embed_put_modules", [{"key": "shop:shop/cart.py", "vector": [0.1] * 8, "embed_key": "x"}])
    stale = retrieve(store, "shop", "checkout", embedder=MODEL)
    assert "8 dimensions" in stale.missing["vectors"] and stale.paths()[0] == "shop/cart.py"  # others still rank
    report = vectors.sync(store, "shop", MODEL)  # type: ignore[arg-type]
    assert report.rebuilt_index and report.total > 20
    left = store.read_text("MATCH (s:Symbol {repo: 'shop'}) WHERE s.kind <> 'variable' AND NOT s.path STARTS WITH "
                           "'tests/' AND (s.embedding IS NULL OR size(s.embedding) <> 384) RETURN count(s) AS n")
    assert left == [{"n": 0}]
    assert vectors.index_dims(store) == 384
    assert not retrieve(store, "shop", "checkout", embedder=MODEL).missing


def test_without_a_model_the_other_signals_rank_and_say_which_is_missing(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    no_model = embed.load("none")
    found = retrieve(store, "shop", "Cart.checkout forgets the coupon", embedder=no_model)
    assert found.paths()[0] == "shop/cart.py"
    assert set(found.missing) == {"vectors"} and "no embeddings" in found.missing["vectors"]
    context = build(store, "shop", "Cart.checkout forgets the coupon", embedder=no_model)
    assert [n for n in context.notes if n.startswith("vectors signal not used")] != []


def test_bad_tasks_and_repos(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    none = embed.load("none")
    with pytest.raises(InputError, match="the task is empty"):
        build(store, "shop", "   \n", embedder=none)
    with pytest.raises(InputError, match="no repository 'nope'"):
        retrieve(store, "nope", "checkout", embedder=none)
    foreign = build(store, "shop", "购物车结账时优惠券没有生效", embedder=none)
    assert foreign.files == [] and any("nothing in the repository matched" in n for n in foreign.notes)
    log = "Checkout is slow\n" + "DEBUG tick\n" * 100_000 + 'File "shop/storage.py", line 14, in save\n'
    cut = build(store, "shop", log, embedder=none)
    assert any("longer than 20,000 characters" in n for n in cut.notes)
    assert cut.files[0].path == "shop/storage.py"


def test_tight_budgets_degrade_step_by_step_and_are_recorded(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    none = embed.load("none")
    task = "Cart.checkout must also save the order through OrderStore.save"
    roomy = build(store, "shop", task, "modify", budget=20_000, embedder=none)
    assert roomy.degradation == [] and [s.name for s in roomy.sections][:2] == ["files", "code"]
    tight = build(store, "shop", task, "modify", budget=300, embedder=none)
    assert tight.tokens <= 300
    assert tight.degradation[:2] == ["code_to_summaries", "call_graph_to_direct"]
    assert "code" not in [s.name for s in tight.sections]
    read = build(store, "shop", task, "read", budget=20_000, embedder=none)
    assert [s.name for s in read.sections][:3] == ["files", "map", "summaries"]
    custom = Orchestrator(types={"debug": Strategy(load=("files", "summaries"), files=2)})
    small = build(store, "shop", task, "debug", orchestrator=custom, embedder=none)
    assert [s.name for s in small.sections] == ["files", "summaries"] and small.text().count("\n1. ") == 1
    limits = Budget(per_call=5000, per_task=1000, alert_at=0.5)
    first = build(store, "shop", task, limits=limits, task="run-1", embedder=none)  # a task key of its own
    second = build(store, "shop", task, limits=limits, task="run-1", embedder=none)
    assert second.budget == max(1000 - first.tokens, 200) and second.alerts  # what the task had left
    calls = store.read_text("MATCH (c:ContextCall) RETURN c.tokens AS tokens, c.degradation AS steps, "
                            "c.alerts AS alerts ORDER BY c.at")
    assert len(calls) == 6 and calls[1]["steps"][:1] == ["code_to_summaries"] and calls[-1]["alerts"]


def test_cli_context_files_json_and_tokens_report(store: Store, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    env = {**kg_env(store.settings), "KG_EMBED_BACKEND": "none"}
    task = tmp_path / "bug.txt"
    task.write_text("OrderStore.save loses orders when the json file exists")
    files = CliRunner().invoke(cli, ["context", "--task-file", str(task), "--repo", "shop", "--files"], env=env)
    assert files.exit_code == 0, files.output
    assert files.stdout.splitlines()[0] == "shop/storage.py"
    # newuser3/4: --files printed every file any signal touched (60 of flask's 82); the best N now, 20 by default
    two = CliRunner().invoke(cli, ["context", "--task-file", str(task), "--repo", "shop", "--files", "--limit", "2"],
                             env=env)
    assert two.stdout.splitlines() == files.stdout.splitlines()[:2] and len(files.stdout.splitlines()) > 2
    data = json.loads(CliRunner().invoke(cli, ["context", "--task", "Cart.checkout", "--type", "debug", "--json",
                                               "--budget", "400"], env=env).stdout)
    assert data["type"] == "debug" and data["tokens"] <= 400 and data["files"][0]["path"] == "shop/cart.py"
    assert "vectors" in data["missing"]
    empty = CliRunner().invoke(cli, ["context", "--task", " "], env=env)
    assert empty.exit_code == 1 and "the task is empty" in empty.output
    both = CliRunner().invoke(cli, ["context", "--task", "x", "--next"], env=env)
    assert both.exit_code == 2
    report = CliRunner().invoke(cli, ["tokens", "report", "--all", "--json"], env=env)
    budgets = json.loads(report.stdout)["budgets"]
    # only the --json call built (and was charged) a context: --files prints the ranking and builds none
    assert budgets["context_calls"] == 1 and budgets["degradations"]


def test_mcp_context_tool(store: Store, graph_settings: Settings, tmp_path: Path) -> None:
    _shop(store, tmp_path, embedded=False)
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(tmp_path),
                                   env={"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password,
                                        "KG_EMBED_BACKEND": "none"})
    answers: dict[str, str] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            for key, args in {"files": {"task": "apply_discounts drops the bulk rule", "files_only": True},
                              "full": {"task": "apply_discounts drops the bulk rule", "type": "refactor"},
                              "bad": {"task": "x", "type": "poetry"}}.items():
                result = await client.call_tool("context", args)
                answers[key] = ("error: " if result.is_error else "") + "\n".join(
                    p.text for p in result.content if getattr(p, "text", None))

    anyio.run(session)
    assert answers["files"].splitlines()[1] == "shop/pricing.py"  # after the one note on the missing signal
    assert answers["files"].startswith("note: vectors signal not used")
    assert "## What depends on them" in answers["full"] and "degradation:" in answers["full"]
    assert answers["bad"].startswith("error: ") and "poetry" in answers["bad"]


def test_the_agent_context_asks_the_ranking_for_a_file_the_plan_ties_to_nothing(store: Store, tmp_path: Path) -> None:
    """LLM used: none (the prompt is built, not sent)."""
    from kg.agent import records
    from kg.agent.context import ContextBuilder
    from kg.agent.plan import parse_markdown
    from kg.agent.tokens import Tokenizer
    from kg.agent.tools import tool_specs

    _shop(store, tmp_path, embedded=False)
    plan = parse_markdown("# Refunds\n- `shop/refunds.py` — refund an order: undo what apply_discounts took off\n")
    plan_id = records.put_plan(store, plan, "shop")
    builder = ContextBuilder(store, "shop", plan_id, Tokenizer(), tool_specs())
    prompt = builder.build(builder.state(None))
    assert "shop/pricing.py" in prompt.knowledge_paths
    assert "`shop/pricing.py`" in prompt.segments["knowledge"].text


@needs_model
def test_cli_ingest_embed_embeds_once_then_only_changes(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, root)
    env = {**kg_env(store.settings), "KG_EMBED_BACKEND": "onnx"}
    first = json.loads(CliRunner().invoke(cli, ["ingest", str(root), "--repo", "shop", "--embed", "--json"],
                                          env=env).stdout)
    assert first["embedded"]["total"] > 20 and first["embedded"]["model"] == "all-MiniLM-L6-v2/onnx-int8"
    (root / "shop" / "models.py").write_text((root / "shop" / "models.py").read_text() + "\nTAX_RATE = 0.2\n")
    second = json.loads(CliRunner().invoke(cli, ["ingest", str(root), "--repo", "shop", "--embed", "--json"],
                                           env=env).stdout)
    assert second["changed"] == ["shop/models.py"] and second["embedded"]["total"] == 0  # a variable: no new text
    no_model = CliRunner().invoke(cli, ["ingest", str(root), "--repo", "shop", "--embed"],
                                  env={**env, "KG_EMBED_BACKEND": "none"})
    assert no_model.exit_code == 1 and "--embed needs an embedding model" in no_model.output


def test_debug_context_shows_recent_commits_and_what_agents_recorded(store: Store, tmp_path: Path) -> None:
    import subprocess

    root = _shop(store, tmp_path, embedded=False)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "Pricing: bulk discount from ten items"], check=True)
    store.write("agent/module_summary_put", repo="shop", path="shop/pricing.py", summary={
        "summary": "discount rules; percent_off closes over its percent", "summary_interface": [],
        "summary_dependencies": [], "summary_notes": "rules run in list order", "summary_kind": "llm"})
    context = build(store, "shop", "apply_discounts applies bulk_discount twice", "debug",
                    embedder=embed.load("none"))
    text = context.text()
    assert "## Recent changes to these files" in text and "Pricing: bulk discount from ten items" in text
    assert "## What was learned about these modules" in text and "rules run in list order" in text


def test_every_retrieve_query_runs_with_its_browser_params(store: Store, tmp_path: Path) -> None:
    """Each queries/retrieve/*.cypher runs as a person would paste it into Neo4j Browser, :param lines included."""
    import re

    from kg import queries

    _shop(store, tmp_path, embedded=False)
    root = Path(__file__).resolve().parents[2] / "queries"
    names = [n for n in queries.names() if n.startswith("retrieve/")]
    assert len(names) >= 20
    for name in sorted(names, key=lambda n: "drop" in n or "clear" in n or "forget" in n):
        text = (root / f"{name}.cypher").read_text()
        assert text.startswith("//"), name
        params = {m[1]: store.read_text(f"RETURN {m[2]} AS v")[0]["v"]
                  for m in re.finditer(r"^:param (\w+) => (.*);$", text, re.MULTILINE)}
        if name in ("retrieve/vector_indexes_create", "retrieve/vector_indexes_drop"):
            store.write_statements(name, **params)
        else:
            store.write(name, **params)


def test_code_is_shown_only_from_the_repositorys_own_regular_files(store: Store, tmp_path: Path) -> None:
    """The code section read files as they are now, through links: a repository whose shop/cart.py became a link
    to a file outside it had that file shown (to the model, through MCP) as the code of Cart.checkout."""
    root = _shop(store, tmp_path, embedded=False)
    none = embed.load("none")
    task = "Cart.checkout must also save the order through OrderStore.save"
    assert "def checkout" in build(store, "shop", task, "modify", budget=20_000, embedder=none).text()
    secret = tmp_path / "secret.txt"
    secret.write_text("\n".join(f"root:x:0:0:SECRET-{i}:/root:/bin/bash" for i in range(40)) + "\n")
    cart = root / "shop" / "cart.py"
    cart.unlink()
    cart.symlink_to(secret)
    shown = build(store, "shop", task, "modify", budget=20_000, embedder=none).text()
    assert "SECRET" not in shown and "def checkout" not in shown


def test_a_pasted_error_message_leads_to_the_file_printing_it(store: Store, tmp_path: Path) -> None:
    """click 8.1.7 from PyPI: a report pastes the error click printed; its words point at the option code
    (decorators.py, core.py first without the phrases signal). The phrases signal finds termui.py, whose string
    literal holds the message, and the default fusion puts it first; after an edit of the message the re-ingested
    file is read again and no longer matches. No model (vectors left out)."""
    root = tmp_path / "click"
    shutil.copytree(sdist("click", "8.1.7"), root)
    Ingestor(store, root, repo="click").run()
    none = embed.load("none")
    report = ("With confirmation_prompt=True on a password option, typing the same password twice still fails:\n"
              "```\nRepeat for confirmation:\nError: The two entered values do not match.\n```")
    alone = retrieve(store, "click", report, signals=("phrases",), embedder=none)
    assert alone.paths() == ["src/click/termui.py"]
    assert alone.files[0].reasons["phrases"] == ['prints "error the two entered values do not match"']
    fused = retrieve(store, "click", report, embedder=none)
    assert fused.paths()[0] == "src/click/termui.py" and "phrases" in fused.files[0].signals
    termui = root / "src" / "click" / "termui.py"
    termui.write_text(termui.read_text().replace("The two entered values do not match", "Those values differ"))
    Ingestor(store, root, repo="click").run()
    assert retrieve(store, "click", report, signals=("phrases",), embedder=none).paths() == []


def test_a_traceback_points_at_the_projects_innermost_frame_not_a_vendored_copy(store: Store, tmp_path: Path) -> None:
    """The error surfaced in a vendored copy of another project (`app/packages/urllib3`), called from the project's
    own models.py: the fix belongs in models.py. Each frame's function used to score its file again and the
    innermost frame weighed most, so the vendored response.py came first."""
    root = tmp_path / "app"
    (root / "app" / "packages" / "urllib3").mkdir(parents=True)
    (root / "app" / "models.py").write_text(
        "class Response:\n    def text(self):\n        return self.content()\n\n"
        "    def content(self):\n        return b''.join(self.raw.stream())\n")
    (root / "app" / "packages" / "urllib3" / "response.py").write_text(
        "class HTTPResponse:\n    def stream(self):\n        yield self.read()\n\n"
        "    def read(self):\n        return self._fp.read()\n\n    def read_chunked(self):\n        return 1\n")
    (root / "app" / "sessions.py").write_text("def request():\n    return 1\n")
    Ingestor(store, root, repo="app").run()
    task = """socket error not wrapped in a ConnectionError
  File "/home/me/script.py", line 3, in main
    print(r.text)
  File "/venv/lib/python3.8/site-packages/app/models.py", line 3, in text
    return self.content()
  File "/venv/lib/python3.8/site-packages/app/models.py", line 6, in content
    return b''.join(self.raw.stream())
  File "/venv/lib/python3.8/site-packages/app/packages/urllib3/response.py", line 3, in stream
    yield self.read()
  File "/venv/lib/python3.8/site-packages/app/packages/urllib3/response.py", line 6, in read
    return self._fp.read()
socket.error: [Errno 104] Connection reset by peer
"""
    found = retrieve(store, "app", task, signals=("names",), embedder=embed.load("none"))
    assert found.paths()[0] == "app/models.py"
    assert "frame app/models.py:6 in content" in found.files[0].reasons["names"]
    # newuser5 #5: every function the traceback ran in models.py is among its symbols, innermost first (the code a
    # debug context shows), not only the frame that scored the file
    assert [q.rsplit(".", 1)[-1] for q in found.files[0].symbols[:2]] == ["content", "text"]


def test_a_product_named_with_its_version_does_not_find_the_module_of_that_name(store: Store,
                                                                               tmp_path: Path) -> None:
    """`Python 3.7.3` in a pasted session header is the language, not the project's python.py: the names signal
    leaves python.py out, and the word still searches. The report's one real name, `rewrite_asserts`, ranks its
    file first in the fusion."""
    root = tmp_path / "tool"
    root.mkdir()
    (root / "python.py").write_text("def collect_module():\n    return 'python module collector'\n")
    (root / "rewrite.py").write_text("def rewrite_asserts(tree):\n    '''Unroll iterable all any calls.'''\n"
                                     "    return tree\n")
    (root / "reports.py").write_text("def report():\n    return 'report'\n")
    Ingestor(store, root, repo="tool").run()
    task = ("Unroll the iterable for all/any calls to get better reports in rewrite_asserts\n"
            "platform darwin -- Python 3.7.3, pytest-4.4.0, py-1.8.0, pluggy-0.9.0\n"
            "Python 3.7.3 on darwin, python python python")
    names = retrieve(store, "tool", task, signals=("names",), embedder=embed.load("none"))
    assert "python.py" not in names.paths() and names.paths()[0] == "rewrite.py"
    fused = retrieve(store, "tool", task, signals=("names", "fulltext"), embedder=embed.load("none"))
    assert fused.paths()[0] == "rewrite.py"


def test_the_call_graph_places_each_neighbour_in_its_own_file(store: Store, tmp_path: Path) -> None:
    """newuser6 #3: a callee's row paired the callee's file with the caller's line (`ctx.py`:1367 in a 449-line
    file). A caller's line is its call of the symbol; a callee's is the line that defines it."""
    root = _shop(store, tmp_path, embedded=False)
    rows = store.read("retrieve/call_graph", repo="shop", qnames=["shop.cart.Cart.checkout"], depth=2, limit=40)
    assert {r["direction"] for r in rows} == {"caller", "callee"}
    for r in rows:
        lines = (root / r["path"]).read_text().splitlines()
        text = lines[r["line"] - 1]
        name = r["other" if r["direction"] == "callee" else "symbol"].rsplit(".", 1)[-1]
        if r["direction"] == "callee":  # its definition starts there (decorators first)
            head = "\n".join(lines[r["line"] - 1:r["line"] + 4])
            assert f"def {name}(" in head or f"class {name}" in head, r
        elif r["hops"] == 1:
            assert f"{name}(" in text, r
