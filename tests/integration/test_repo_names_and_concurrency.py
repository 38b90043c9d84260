"""Repository names that would lead out of the cache folder or collide in graph keys are refused in one line
(library and CLI), and concurrent ingests of one repository in separate processes all succeed and leave exactly
the graph a clean ingest would. Real Neo4j, real files (flask 3.0.3 from its sdist)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kg.ingest.pipeline import Ingestor

from kg.errors import InputError
from kg.names import check_repo_name
from kg.settings import Settings
from kg.store import Store
from tests.graph_snapshot import snapshot
from tests.sdists import sdist

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"
BAD = ["x/../../../../evil", "a/b", "..", ".", "", " padded", "a\\b", "a:b", "line\nbreak", "nul\x00", "x" * 101]


@pytest.mark.parametrize("name", BAD)
def test_bad_repository_names_are_refused_and_touch_no_path(store: Store, tmp_path: Path, name: str) -> None:
    cache = tmp_path / "deep" / "cache"
    with pytest.raises(InputError) as refused:
        Ingestor(store, TINYSHOP, repo=name, cache_dir=cache).run()
    assert "\n" not in str(refused.value) and "repository name" in str(refused.value)
    assert not (tmp_path / "deep").exists() and list(tmp_path.rglob("*.sqlite")) == []
    assert store.read("repos") == []


def test_good_names_pass_unchanged() -> None:
    for name in ("shop", "my-project", "café_2.0", ".dotfiles", "ws-calc-1a2b3c"):
        assert check_repo_name(name) == name


def test_the_cli_refuses_them_in_one_line(store: Store, graph_settings: Settings, tmp_path: Path) -> None:
    env = {**os.environ, "NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    for name in ("x/../../../../evil", "a/b"):
        done = subprocess.run([sys.executable, "-m", "kg", "ingest", str(TINYSHOP), "--repo", name], cwd=tmp_path,
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("error: repository name") and "Traceback" not in done.stderr
    assert list(tmp_path.rglob("*.sqlite")) == [] and not (tmp_path.parent / "evil.sqlite").exists()


def test_forgetting_an_unknown_repository_is_an_error(store: Store, graph_settings: Settings,
                                                      tmp_path: Path) -> None:
    """`kg forget nope` printed "forgot nope" and exited 0, as if something had been removed."""
    Ingestor(store, TINYSHOP, repo="shop").run()
    env = {**os.environ, "NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    done = subprocess.run([sys.executable, "-m", "kg", "forget", "nope"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1 and done.stderr == "error: no repository named 'nope' in the graph (have: shop)\n"
    gone = subprocess.run([sys.executable, "-m", "kg", "forget", "shop"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=120)
    assert gone.returncode == 0 and store.read("repos") == []


def test_ingesting_a_folder_inside_an_ingested_repository_asks_what_was_meant(store: Store, graph_settings: Settings,
                                                                             tmp_path: Path) -> None:
    """`kg ingest .` in a subfolder of an ingested repository made a second, overlapping repository named after the
    folder, with other module names; now it asks, and --repo still makes one on purpose. At the root of a repository
    ingested under another name, `kg ingest .` updates it (it made a second one named after the folder)."""
    shop = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, shop)
    Ingestor(store, shop, repo="shop").run()
    env = {**os.environ, "NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    inside = subprocess.run([sys.executable, "-m", "kg", "ingest", "."], cwd=shop / "shop", capture_output=True,
                            text=True, env=env, timeout=120)
    assert inside.returncode == 1 and inside.stderr.count("\n") == 1, inside.stderr
    assert f"is inside repository 'shop' (root {shop.resolve()}): run `kg ingest" in inside.stderr
    assert [r["repo"] for r in store.read("repos")] == ["shop"]
    again = subprocess.run([sys.executable, "-m", "kg", "ingest", "."], cwd=shop, capture_output=True, text=True,
                           env=env, timeout=120)  # the repository's own root: an update as before
    assert again.returncode == 0, again.stderr
    named = subprocess.run([sys.executable, "-m", "kg", "ingest", ".", "--repo", "shop-core"], cwd=shop / "shop",
                           capture_output=True, text=True, env=env, timeout=120)
    assert named.returncode == 0 and sorted(r["repo"] for r in store.read("repos")) == ["shop", "shop-core"]


def test_a_folder_whose_name_cannot_be_a_repository_name_asks_for_one(store: Store, tmp_path: Path) -> None:
    odd = tmp_path / "odd:name"
    shutil.copytree(TINYSHOP, odd)
    with pytest.raises(InputError, match="holds ':'"):
        Ingestor(store, odd)
    assert Ingestor(store, odd, repo="odd-name").run().files > 0


def test_three_concurrent_incremental_ingests_of_one_repository(store: Store, graph_settings: Settings,
                                                                tmp_path: Path) -> None:
    root = tmp_path / "flask"
    shutil.copytree(sdist("flask", "3.0.3"), root)
    Ingestor(store, root, repo="busy").run()
    # Edits that make each run rewrite shared nodes: a renamed helper many modules call, a new module, a deletion.
    helpers = root / "src" / "flask" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("def get_debug_flag(", "def get_debug_flag_renamed("))
    (root / "src" / "flask" / "extra.py").write_text("from .helpers import send_file\n\n\ndef extra():\n"
                                                     "    return send_file\n")
    (root / "src" / "flask" / "typing.py").unlink()
    env = {**os.environ, "NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    runs = [subprocess.Popen([sys.executable, "-m", "kg", "ingest", str(root), "--repo", "busy", "--json"],
                             cwd=tmp_path / f"p{i}" if (tmp_path / f"p{i}").mkdir() is None else None,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for i in range(3)]
    outcomes = [(r.wait(300), r.stdout.read(), r.stderr.read()) for r in runs]
    assert [code for code, _, _ in outcomes] == [0, 0, 0], [err[-500:] for _, _, err in outcomes]
    assert all("Traceback" not in err for _, _, err in outcomes)

    Ingestor(store, root, repo="clean").run()
    assert snapshot(store, "busy") == snapshot(store, "clean")
