"""Unpacking a tar archive into a folder without letting any member land outside it.

Python's extraction filters (`filter="data"`) came in 3.11.4; kg supports 3.11 (Debian 12 ships 3.11.2), where
`extractall` has no filter. There only regular files and folders inside the folder are unpacked: without links, no
later member can be written through one to a place outside.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from pathlib import Path


def extract_tar(tar: tarfile.TarFile, folder: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, filter="data")
    else:
        tar.extractall(folder, members=plain_members(tar))


def plain_members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """The archive's regular files and folders whose names stay inside the folder."""
    for member in tar:
        if (member.isfile() or member.isdir()) and not member.name.startswith("/") \
                and ".." not in Path(member.name).parts:
            yield member
