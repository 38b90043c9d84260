"""Repository names: one name per repository, the same in the graph, on the command line and in file names.

A name is the prefix of every graph key (`repo:qname`, `repo:path`) and part of the parse cache's file name, so it
is checked wherever a name comes in (`kg ingest --repo`, the agent's `--repo`, a folder name taken as the
default) instead of being encoded in one place and not another: no `/`, `\\` or `..` that would lead out of the
cache folder or make nested ones, no `:` that would let two repositories' keys collide (`a:b` + `c.py` and `a` +
`b:c.py`), no control characters, and short enough for a file name.
"""

from __future__ import annotations

import re

from kg.errors import InputError, shorten

MAX_NAME = 100  # characters
_BAD = re.compile(r"[/\\:\x00-\x1f\x7f]")


def check_repo_name(name: str) -> str:
    """`name` when it can name a repository everywhere kg uses one, else a one-line InputError saying why."""
    problem = None
    if not name or not name.strip():
        problem = "is empty"
    elif name != name.strip():
        problem = "starts or ends with a space"
    elif name in (".", ".."):
        problem = "is a path step, not a name"
    elif m := _BAD.search(name):
        problem = f"holds {m.group()!r}"
    elif len(name) > MAX_NAME or len(name.encode("utf-8")) > 2 * MAX_NAME:
        problem = f"is longer than {MAX_NAME} characters"
    if problem:
        raise InputError(f"repository name {shorten(name, 60)} {problem}: name it with letters, digits, `.`, `-` "
                         "or `_` (--repo my-project)")
    return name
