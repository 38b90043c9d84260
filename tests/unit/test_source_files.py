"""Files read again at query time (kg.source_files): a regular file of the project is read; a link, a FIFO, a
device or a giant is not, whatever appeared after the ingest. Real files, links and FIFOs in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

from kg.source_files import MAX_SOURCE_BYTES, read_source


def test_a_plain_file_of_the_project_is_read(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_bytes(b"def f():\n    return '\xff'\n")
    assert read_source(tmp_path, "pkg/a.py") == "def f():\n    return '\ufffd'\n"


def test_links_fifos_devices_and_giants_are_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("password = 1\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "to_secret.py").symlink_to(outside / "secret.py")
    (root / "to_zero.py").symlink_to("/dev/zero")
    (root / "linked_dir").symlink_to(outside, target_is_directory=True)
    os.mkfifo(root / "pipe.py")  # opening it for reading would wait for a writer forever
    (root / "giant.py").write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    for path in ("to_secret.py", "to_zero.py", "linked_dir/secret.py", "pipe.py", "giant.py", "../outside/secret.py",
                 "missing.py"):
        assert read_source(root, path) is None, path
