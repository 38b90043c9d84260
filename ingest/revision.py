"""The graph of a past revision, for `kg review --since REV`: the revision's tree, read with `git archive` (nothing in
the repository changes), ingested as a temporary repository and forgotten afterwards.

kg's core cannot import ingest, so the review finds this function through the `kg.revision_graph` entry point.
"""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg.archives import extract_tar
from kg.errors import InputError
from kg.git import git
from kg.store import Store


@contextmanager
def revision_repo(store: Store, root: Path, revision: str, repo: str,
                  progress: Callable[[str, int, int], None] | None = None) -> Iterator[tuple[str, str]]:
    """Yields (temporary repository name, commit id) with the tree of `revision` of the repository at `root`."""
    try:
        top = Path(git(root, "rev-parse", "--show-toplevel").strip())
    except InputError as e:
        raise InputError(f"--since {revision}: {root} has no git history; compare with a stored review file "
                         "instead (`kg review --json` or the HTML page)") from e
    prefix = git(root, "rev-parse", "--show-prefix").strip().rstrip("/")
    try:
        commit = git(root, "rev-parse", "--verify", "--quiet", revisions=(f"{revision}^{{commit}}",)).strip()
    except InputError as e:
        raise InputError(f"--since {revision}: no such commit in {top} (and no file of that name)") from e
    name = f"{repo}@{commit[:12]}"
    with tempfile.TemporaryDirectory(prefix="kg-since-") as tmp:
        archive = Path(tmp) / "tree.tar"
        tree_ish = f"{commit}:{prefix}" if prefix else commit
        git(top, "archive", "--format=tar", f"--output={archive}", revisions=(tree_ish,))
        tree = Path(tmp) / "tree"
        with tarfile.open(archive) as tar:
            extract_tar(tar, tree)
        archive.unlink()
        try:
            Ingestor(store, tree, repo=name, role="reference", progress=progress).run()
            yield name, commit
        finally:
            GraphWriter(store, name).forget_repo()

