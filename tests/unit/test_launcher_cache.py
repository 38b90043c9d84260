"""The launcher cache keeps the builds other checkouts still use and prunes only the ones nobody started lately."""

from __future__ import annotations

import os
import time
from pathlib import Path

from kg.server import build


def _build_dir(root: Path, name: str, days_unused: float | None) -> Path:
    folder = root / name
    folder.mkdir()
    if days_unused is not None:
        ready = folder / "ready"
        ready.write_text("ok\n")
        stamp = time.time() - days_unused * 86400
        os.utime(ready, (stamp, stamp))
    return folder


def test_prune_keeps_recent_builds_and_this_one(tmp_path: Path) -> None:
    current = _build_dir(tmp_path, "aaaa", days_unused=0)
    recent = _build_dir(tmp_path, "bbbb", days_unused=1)  # another clone started it yesterday
    stale = _build_dir(tmp_path, "cccc", days_unused=build.PRUNE_AFTER_DAYS + 1)
    died = _build_dir(tmp_path, "dddd.build-7", days_unused=None)  # a build that died half way, long ago
    old = time.time() - (build.PRUNE_AFTER_DAYS + 1) * 86400
    os.utime(died, (old, old))
    other_version_building = _build_dir(tmp_path, "eeee.build-9", days_unused=None)  # another checkout, right now
    own_staging = _build_dir(tmp_path, "aaaa.build-123", days_unused=None)
    build._prune(current)
    assert {p.name for p in tmp_path.iterdir()} == {current.name, recent.name, other_version_building.name,
                                                    own_staging.name}
    assert not stale.exists() and not died.exists()
