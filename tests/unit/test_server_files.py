"""The local server's own file handling on real files: no write, truncation or chmod through a symlink, no
setting smuggled into neo4j.conf, one start at a time per data folder (attack report #2, #3, #11)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kg import settings
from kg.errors import ConfigError, ServerError
from kg.server import state
from kg.server.neo4j_config import write_conf


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file and a folder outside the data folder that must stay as they are."""
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o755)
    os.chmod(outside, 0o755)
    (outside / "precious.txt").write_text("IMPORTANT USER DATA\n")
    os.chmod(outside / "precious.txt", 0o644)
    return outside


def test_a_symlinked_folder_is_refused_and_its_target_keeps_its_mode(tmp_path: Path, victim: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "import").symlink_to(victim)
    with pytest.raises(ServerError, match=r"import is a symlink: kg keeps its files only in a real folder"):
        state.make_private_dir(data / "import")
    linked = tmp_path / "linked-data"
    linked.symlink_to(victim)
    with pytest.raises(ServerError, match="is a symlink"):
        state.make_private_tree(linked)
    assert victim.stat().st_mode & 0o777 == 0o755
    assert (victim / "precious.txt").stat().st_mode & 0o777 == 0o644


def test_the_private_tree_does_not_follow_links_inside_it(tmp_path: Path, victim: Path) -> None:
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True, mode=0o755)
    (data / "logs" / "elsewhere").symlink_to(victim)
    (data / "notes").symlink_to(victim / "precious.txt")
    state.make_private_tree(data)
    assert (data / "logs").stat().st_mode & 0o777 == 0o700
    assert victim.stat().st_mode & 0o777 == 0o755
    assert (victim / "precious.txt").stat().st_mode & 0o777 == 0o644


def test_a_log_is_never_truncated_through_a_symlink_or_hard_link(tmp_path: Path, victim: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for name, make in (("server.log", os.symlink), ("other.log", os.link)):
        make(victim / "precious.txt", data / name)
        fd = state.open_new_private(data / name)
        with os.fdopen(fd, "w") as log:
            log.write("KG-READY\n")
        assert (data / name).read_text() == "KG-READY\n" and not (data / name).is_symlink()
        assert (data / name).stat().st_mode & 0o777 == 0o600
    assert (victim / "precious.txt").read_text() == "IMPORTANT USER DATA\n"


def test_private_writes_from_many_threads_do_not_collide(tmp_path: Path) -> None:
    """Attack report #11: the temporary name was per process, so MCP's threads raised FileNotFoundError."""
    target, failures = tmp_path / "neo4j.conf", []

    def write(n: int) -> None:
        try:
            for _ in range(50):
                state.write_private(target, f"writer {n}\n" * 100)
        except OSError as e:
            failures.append(e)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(set(target.read_text().splitlines())) == 1  # one whole write, not a mix
    assert [p.name for p in tmp_path.iterdir()] == ["neo4j.conf"]  # no temporary file left behind


def test_starts_take_turns_per_data_folder(tmp_path: Path) -> None:
    order: list[str] = []

    def second() -> None:
        with state.start_lock(tmp_path, time.monotonic() + 10):
            order.append("second")

    with state.start_lock(tmp_path, time.monotonic() + 10):
        waiting = threading.Thread(target=second)
        waiting.start()
        time.sleep(0.5)
        order.append("first")
    waiting.join()
    assert order == ["first", "second"]
    with state.start_lock(tmp_path, time.monotonic() + 10):
        with pytest.raises(ServerError, match="another kg command is starting the server"):
            with state.start_lock(tmp_path, time.monotonic() + 0.3):
                pass


@pytest.mark.parametrize("char", ["\r", "\n", "\x0b", "\x0c", "\x85", "\u2028", "\x00"])
def test_no_control_character_reaches_neo4j_conf(tmp_path: Path, char: str) -> None:
    """Attack report #2: Neo4j reads `\\r` as a line break; every control character is refused."""
    s = settings.load({"data_dir": str(tmp_path / "data")}, cwd=tmp_path)
    hostile = replace(s, data_dir=tmp_path / f"d{char}server.logs.config=/tmp/evil.xml")
    with pytest.raises(ConfigError, match="with a control character"):
        write_conf(hostile, tmp_path / "neo4j.conf")
    assert not (tmp_path / "neo4j.conf").exists()
    write_conf(s, tmp_path / "neo4j.conf")
    lines = (tmp_path / "neo4j.conf").read_bytes().split(b"\n")
    assert b"server.memory.pagecache.size=" + s.pagecache.encode() in lines
    assert f"server.directories.plugins={tmp_path / 'data' / 'plugins'}".encode() in lines


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_another_users_folder_is_refused_and_left_alone(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chmod(theirs, 0o755)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(ServerError, match=r"belongs to another user \(uid 65534\): kg keeps its data only"):
        state.make_private_tree(theirs)
    assert theirs.stat().st_mode & 0o777 == 0o755
