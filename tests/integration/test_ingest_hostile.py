"""What a repository (or an agent writing one) puts in its own tree cannot make `kg ingest` run code, abort or hang.

Each test is one finding of the attack report (notes/attack.md), reproduced on real files and the real test Neo4j,
through the CLI people run (`kg ingest`, click's runner in this process) or the Ingestor the agent loop uses.
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.cache import cache_path, project_cache_dir

from kg.cli import cli
from kg.source_files import content_hash
from kg.store import Store


def kg_env(store: Store, cache: Path) -> dict[str, str]:
    s = store.settings
    return {"KG_BOLT_PORT": str(s.bolt_port), "KG_HTTP_PORT": str(s.http_port), "KG_DATA_DIR": str(s.data_dir),
            "KG_CACHE_DIR": str(cache)}


class _Payload:
    """What a hostile pickle does when loaded: run a command (here: create a marker file)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_parse_cache_committed_in_the_repository_is_never_unpickled(store: Store, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack report #1: the repository ships `.kg/cache/parse-<fingerprint>-<repo>.sqlite` holding a pickle that
    runs a command; `kg ingest` must not load it, and its own cache goes to the user's cache folder."""
    repo = tmp_path / "victim"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    source = b"def f():\n    return 1\n"
    (repo / "pkg" / "mod.py").write_bytes(source)
    marker = tmp_path / "pickle-ran"
    planted = cache_path(repo / ".kg" / "cache", "victim")
    planted.parent.mkdir(parents=True)
    with sqlite3.connect(planted) as db:
        db.execute("CREATE TABLE parses (hash TEXT PRIMARY KEY, entry BLOB NOT NULL)")
        db.execute("INSERT INTO parses VALUES (?, ?)", (content_hash(source), pickle.dumps(_Payload(marker))))
    monkeypatch.chdir(repo)

    user_cache = tmp_path / "user-cache"
    done = CliRunner().invoke(cli, ["ingest", ".", "--repo", "victim", "--json"], env=kg_env(store, user_cache))
    assert done.exit_code == 0, done.output
    assert not marker.exists(), "kg ingest unpickled a parse cache the repository shipped"
    monkeypatch.setenv("KG_CACHE_DIR", str(user_cache))
    own = cache_path(project_cache_dir(repo), "victim")
    assert own.is_file() and user_cache in own.parents
    assert own.parent.stat().st_mode & 0o777 == 0o700
    found = store.read_text("MATCH (s {repo: 'victim', qname: 'pkg.mod.f'}) RETURN count(s) AS n")
    assert found[0]["n"] == 1


def test_a_bad_file_name_and_a_hostile_gitignore_are_listed_not_fatal(store: Store, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack reports #10 and #7: one non-UTF-8 file name aborted the whole ingest ("a value sent to Neo4j is not
    valid text"); a `*a*a…*b` .gitignore line hung it. Both are now entries of the report's skipped list."""
    repo = tmp_path / "hrepo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "good.py").write_text("def g():\n    return 1\n")
    (repo / "pkg" / os.fsdecode(b"bad\xffname.py")).write_text("def b():\n    return 1\n")
    (repo / ("a" * 40 + ".py")).write_text("x = 1\n")
    (repo / ".gitignore").write_text("*a" * 24 + "*b\n" + "trailing\\\n")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["ingest", str(repo), "--repo", "hrepo", "--json"],
                              env=kg_env(store, tmp_path / "user-cache"))
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["files"] == 2
    assert {(s["path"], s["reason"]) for s in report["skipped"]} == {
        ("pkg/bad\\xffname.py", "its name is not valid UTF-8: rename it to ingest it"),
        (".gitignore", "line 2 not used: not a valid pattern")}
    found = store.read_text("MATCH (s {repo: 'hrepo', qname: 'pkg.good.g'}) RETURN count(s) AS n")
    assert found[0]["n"] == 1
