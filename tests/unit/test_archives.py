"""Unpacking a tar archive keeps every member inside the folder, also on Pythons without extraction filters."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from kg.archives import extract_tar, plain_members


def _archive(tmp_path: Path) -> Path:
    path = tmp_path / "a.tar"
    with tarfile.open(path, "w") as tar:
        for name, data in (("pkg/app.py", b"x = 1\n"), ("../escape.py", b"bad\n"), ("/abs.py", b"bad\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("pkg/out")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc"
        tar.addfile(link)
    return path


def test_without_filters_only_plain_members_inside_the_folder_are_unpacked(tmp_path: Path) -> None:
    """Python 3.11.2 (Debian 12) has no `filter=`: kg's fallback unpacks regular files and folders whose names stay
    inside, never a link (a later member could be written through it) nor `..` or absolute names."""
    with tarfile.open(_archive(tmp_path)) as tar:
        assert [m.name for m in plain_members(tar)] == ["pkg/app.py"]


def test_extract_tar_unpacks_the_project_and_nothing_outside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with tarfile.open(_archive(tmp_path)) as tar:
        try:
            extract_tar(tar, out)
        except tarfile.FilterError:  # the "data" filter refuses the archive's bad members outright
            pass
    assert not (tmp_path / "escape.py").exists() and not Path("/abs.py").exists()
    assert not (out / "pkg" / "out").is_symlink() or (out / "pkg" / "out").resolve().is_relative_to(out)
