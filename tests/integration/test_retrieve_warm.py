"""A warm process (MCP, the agent) answers `context` from what it keeps per repository revision: the file ties the
graph signal expands along (kg.retrieve.ties) and the vector index's dimensions. Against the real Neo4j on real
code (flask 3.0.3 from PyPI) and tinyshop; no embedding model is needed (names, full text and graph rank).
LLM used: none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.retrieve import ties
from kg.retrieve.search import retrieve
from kg.store import Store
from tests.sdists import sdist

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"
NO_VECTORS = ("names", "fulltext", "graph")
FLASK_TASKS = [
    "Blueprint.register fails when a blueprint is registered twice with the same name",
    "url_for raises BuildError for an endpoint with a trailing slash",
    'File "src/flask/app.py", line 1498, in wsgi_app\nKeyError: session',
    "send_file does not set the ETag header for file-like objects",
    "The config from_pyfile loader ignores the silent argument",
]


@pytest.fixture(autouse=True)
def _cold() -> None:
    ties.forget()  # every test starts as a new process would


def _status(store: Store, repo: str) -> object:
    return store.read("retrieve/repo_status", repo=repo)[0]["ingested_at"]


def test_the_ties_table_answers_what_the_neighbourhood_query_answers(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "flask"
    shutil.copytree(sdist("flask", "3.0.3"), root)
    Ingestor(store, root, repo="flask").run()
    version = _status(store, "flask")
    paths = ["src/flask/app.py", "src/flask/blueprints.py", "src/flask/helpers.py", "src/flask/sansio/app.py",
             "src/flask/ctx.py", "tests/test_basic.py", "src/flask/json/provider.py"]
    ties.neighbourhood(store, "flask", paths, version)  # the first call of a revision asks the graph
    assert "flask" not in ties._tables and not ties._loading  # a one-shot process reads no table
    ties.neighbourhood(store, "flask", paths, version)  # the second starts reading the whole table
    ties.settle()
    assert ties._tables["flask"].version == version
    table = ties.neighbourhood(store, "flask", paths, version)
    graph = store.read("retrieve/neighbourhood", repo="flask", paths=paths)
    key = lambda r: (r["src"], r["dst"], r["type"])  # noqa: E731
    assert len(graph) > 100
    assert sorted(map(key, table)) == sorted(map(key, graph))
    assert {key(r): r["n"] for r in table} == {key(r): r["n"] for r in graph}


def test_a_warm_ranking_equals_a_cold_one(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "flask"
    shutil.copytree(sdist("flask", "3.0.3"), root)
    Ingestor(store, root, repo="flask").run()
    cold = []
    for task in FLASK_TASKS:
        ties.forget()  # every task as a one-shot `kg context`: ties from the neighbourhood query
        cold.append(retrieve(store, "flask", task, signals=NO_VECTORS))
    retrieve(store, "flask", FLASK_TASKS[0], signals=NO_VECTORS)
    retrieve(store, "flask", FLASK_TASKS[1], signals=NO_VECTORS)
    ties.settle()
    assert "flask" in ties._tables  # the warm process read the table
    warm = [retrieve(store, "flask", task, signals=NO_VECTORS) for task in FLASK_TASKS]
    for before, after in zip(cold, warm, strict=True):
        assert after.paths() == before.paths()
        assert [round(f.score, 9) for f in after.files] == [round(f.score, 9) for f in before.files]
        # the same ties summed in another order: the graph ranks agree to the last few bits
        assert [(p, round(e.score, 12), e.reasons) for p, e in after.rankings["graph"].files] == \
            [(p, round(e.score, 12), e.reasons) for p, e in before.rankings["graph"].files]


def test_an_ingest_changes_what_the_warm_process_answers(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, root)
    Ingestor(store, root, repo="shop").run()
    task = "apply_discounts gives the wrong total"
    for _ in range(2):
        retrieve(store, "shop", task, signals=NO_VECTORS)
    ties.settle()
    before = retrieve(store, "shop", task, signals=NO_VECTORS)
    assert "shop" in ties._tables  # warm: the ties come from memory now
    old = ties._tables["shop"].version
    assert "shop/audit.py" not in [p for p, _ in before.rankings["graph"].files]
    (root / "shop" / "audit.py").write_text("from shop.pricing import apply_discounts\n\n\n"
                                            "def audited_total(order, rules):\n"
                                            "    return apply_discounts(order, rules)\n")
    Ingestor(store, root, repo="shop").run()
    for _ in range(3):  # the new revision's first tasks ask the graph while its table is read again, then the table
        after = retrieve(store, "shop", task, signals=NO_VECTORS)
        assert "shop/audit.py" in [p for p, _ in after.rankings["graph"].files]
        ties.settle()
    assert ties._tables["shop"].version == _status(store, "shop") != old
