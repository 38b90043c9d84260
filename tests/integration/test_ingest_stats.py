"""Which files a run reads: only those whose stat (size, mtime, ctime, inode) changed since they were hashed, in the
same process and in a new one; an edit that keeps the size and puts the mtime back is still seen, and the graph
still equals a clean ingest (real Neo4j, tinyshop's files)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from kg.ingest import walk
from kg.ingest.pipeline import Ingestor
from kg.ingest.walk import RACY_NS, settled
from kg.ingest.writer import GraphWriter

from kg.store import Store
from tests.graph_snapshot import snapshot

TINYSHOP = Path(__file__).resolve().parents[2] / "examples" / "tinyshop"
AN_HOUR_AGO = time.time_ns() - 3600 * 10**9
SHORT_WINDOW = 200_000_000  # ns: the racy window these tests wait out instead of walk.RACY_NS


def age(root: Path) -> None:
    """Files last written an hour ago and left alone for longer than the racy window, as a checkout's are: their
    stat can vouch for their bytes (walk.settled; the ctime, which cannot be set back, is now: wait the window)."""
    for path in root.rglob("*"):
        os.utime(path, ns=(AN_HOUR_AGO, AN_HOUR_AGO))
    time.sleep(2 * SHORT_WINDOW / 1e9)


def equals_clean(store: Store, work: Path) -> bool:
    GraphWriter(store, "clean").forget_repo()
    Ingestor(store, work, repo="clean").run()
    return snapshot(store, "st") == snapshot(store, "clean")


def rewrite_keeping_size_and_mtime(path: Path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("mode", ["watcher", "fresh process"])
def test_an_edit_that_keeps_size_and_mtime_is_seen(store: Store, tmp_path: Path, mode: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "RACY_NS", SHORT_WINDOW)
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    age(work)
    cache = tmp_path / "cache"
    kept = Ingestor(store, work, repo="st", cache_dir=cache)
    first = kept.run()
    assert first.hashed == first.files + first.documents

    def run() -> object:
        return kept.run() if mode == "watcher" else Ingestor(store, work, repo="st", cache_dir=cache).run()

    again = run()
    assert again.written == 0 and again.hashed == 0  # nothing read: every stat vouches for its file

    pricing = work / "shop" / "pricing.py"
    rewrite_keeping_size_and_mtime(pricing, b"def apply_discounts(", b"def apply_discount_(")
    edited = run()
    assert edited.hashed == 1 and edited.changed == ["shop/pricing.py"]
    assert equals_clean(store, work)

    # same size, same mtime, and now binary: the walk's content check runs again and leaves it out
    data = pricing.read_bytes()
    rewrite_keeping_size_and_mtime(pricing, data[:8], b"\0" * 8)
    binary = run()
    assert ("shop/pricing.py", "binary") in binary.skipped and binary.deleted == 1
    assert equals_clean(store, work)


def test_a_file_written_moments_before_a_run_is_read_again_next_time(store: Store, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Git's racily clean entries: a file changed within the timestamp tick of being read could change again and
    keep its size and times, so its stat is not kept and the next run reads it again (only it)."""
    work = tmp_path / "tinyshop"
    shutil.copytree(TINYSHOP, work)
    age(work)
    cache = tmp_path / "cache"
    monkeypatch.setattr(walk, "RACY_NS", SHORT_WINDOW)
    Ingestor(store, work, repo="st", cache_dir=cache).run()
    monkeypatch.setattr(walk, "RACY_NS", 60 * 10**9)  # the edit below stays inside the window however slow the run
    cart = work / "shop" / "cart.py"
    cart.write_text(cart.read_text() + "\n# touched\n")  # now: not settled
    assert Ingestor(store, work, repo="st", cache_dir=cache).run().changed == ["shop/cart.py"]
    again = Ingestor(store, work, repo="st", cache_dir=cache).run()
    assert again.hashed == 1 and again.written == 0
    assert equals_clean(store, work)


def test_settled_needs_both_times_older_than_the_racy_window(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    info = path.stat()
    now = time.time_ns()
    assert not settled(info, now)  # ctime is now, whatever the mtime says
    os.utime(path, ns=(AN_HOUR_AGO, AN_HOUR_AGO))
    assert not settled(path.stat(), now)  # setting the mtime back sets the ctime to now
    assert settled(path.stat(), now + RACY_NS + 10**9)
