"""Leaving out --repo: every whole-repository command infers the repository from the current folder, the way
`changes` always did (kg.navigate.targets.repo_at), when the graph holds several (e.g. the demo's ones beside the
user's). Real Neo4j, two real copies of tinyshop ingested under two names, the CLI through click's runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.pipeline import Ingestor

from kg.cli import cli
from kg.settings import Settings
from kg.store import Store

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"


@pytest.fixture
def two_shops(store: Store, tmp_path: Path) -> Path:
    for name in ("shop-a", "shop-b"):
        shutil.copytree(TINYSHOP, tmp_path / name)
        Ingestor(store, tmp_path / name, repo=name).run()
    return tmp_path


def kg(settings: Settings, *args: str) -> tuple[int, str]:
    env = {"KG_BOLT_PORT": str(settings.bolt_port), "KG_HTTP_PORT": str(settings.http_port),
           "KG_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


WHOLE_REPO = [
    ("dead-code", "--json"),
    ("cycles", "--json"),
    ("review", "--check", "--json"),
    ("context", "--task", "the discount of a bulk order is wrong", "--no-embed", "--json"),
]


@pytest.mark.parametrize("args", WHOLE_REPO, ids=lambda a: a[0])
def test_a_whole_repo_command_run_inside_one_repository_answers_about_it(two_shops: Path, graph_settings: Settings,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          args: tuple[str, ...]) -> None:
    monkeypatch.chdir(two_shops / "shop-b" / "shop")  # a subfolder of the second repository
    code, output = kg(graph_settings, *args)
    assert code == 0, output
    answer = json.loads(output)
    assert answer.get("repo") == "shop-b" or "in shop-b" in answer.get("title", ""), output[:500]


@pytest.mark.parametrize("args", WHOLE_REPO, ids=lambda a: a[0])
def test_outside_every_repository_it_still_asks_for_repo(two_shops: Path, graph_settings: Settings,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         args: tuple[str, ...]) -> None:
    monkeypatch.chdir(two_shops)  # the parent of both: neither is meant
    code, output = kg(graph_settings, *args)
    assert code == 1
    assert output.startswith("error: ") and "pass --repo" in output and len(output.strip().splitlines()) == 1


def test_an_explicit_repo_wins_over_the_current_folder(two_shops: Path, graph_settings: Settings,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(two_shops / "shop-b")
    code, output = kg(graph_settings, "dead-code", "--repo", "shop-a", "--json")
    assert code == 0 and json.loads(output)["title"] == "dead code in shop-a"


def test_hotspots_inside_a_repository_rank_only_its_symbols(two_shops: Path, graph_settings: Settings,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Hotspots rank across every repository only where the current folder is in none of them."""
    monkeypatch.chdir(two_shops / "shop-b" / "shop")
    code, output = kg(graph_settings, "hotspots", "--json")
    assert code == 0 and json.loads(output)["title"] == "hotspots in shop-b", output[:300]
    monkeypatch.chdir(two_shops)
    code, output = kg(graph_settings, "hotspots", "--json")
    assert code == 0 and {row["repo"] for row in json.loads(output)["rows"]} == {"shop-a", "shop-b"}
