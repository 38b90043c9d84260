"""Real code for tests and benchmarks: a pinned PyPI source distribution, downloaded once and unpacked in a cache."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from kg.archives import extract_tar
from kg.server.build import cache_root


def sdist(name: str, version: str) -> Path:
    """The unpacked source tree of `name==version` (pip download --no-binary :all:), cached under ~/.cache/kg."""
    base = cache_root() / "sdists"
    tree = base / f"{name}-{version}"
    if (tree / ".complete").exists():
        return tree
    base.mkdir(parents=True, exist_ok=True)
    with (base / f".{name}-{version}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers asking at once: one download, one unpacking
        if not (tree / ".complete").exists():
            _fetch(name, version, base, tree)
    return tree


def _fetch(name: str, version: str, base: Path, tree: Path) -> None:
    download = base / "downloads"
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                    "-d", str(download), f"{name}=={version}"], check=True)
    archive = next(p for p in download.iterdir()
                   if p.name.lower().replace("_", "-").startswith(f"{name}-{version}".lower()))
    staging = base / f".{name}-{version}.unpacking"
    if archive.suffix == ".zip":
        zipfile.ZipFile(archive).extractall(staging)
    else:
        with tarfile.open(archive) as tar:
            extract_tar(tar, staging)
    (inner,) = list(staging.iterdir())
    inner.rename(tree)
    staging.rmdir()
    (tree / ".complete").write_text("ok\n")
