"""What the CLI, the MCP server and the agent share around the context: which repository a task is about, reading
a task file, and embedding a repository on first use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kg.errors import InputError
from kg.retrieve import embed, vectors
from kg.retrieve.search import repo_status
from kg.store import Store

MAX_TASK_FILE = 2_000_000  # bytes read from a task file; the text is cut further (kg.retrieve.text.MAX_TASK_CHARS)


def task_repo(store: Store, repo: str | None) -> str:
    """The repository a task is about: the one given, else the only target repository in the graph."""
    rows = store.read("repos")
    if repo:
        if repo not in {r["repo"] for r in rows}:
            have = ", ".join(r["repo"] for r in rows) or "none"
            raise InputError(f"no repository named {repo!r} in the graph (have: {have}): pass --repo NAME")
        return repo
    targets = [r["repo"] for r in rows if r["role"] != "reference"]
    if len(targets) == 1:
        return targets[0]
    if not targets:
        raise InputError("the graph holds no target repository: ingest one first (`kg ingest PATH`)")
    raise InputError(f"the graph holds {len(targets)} repositories ({', '.join(targets)}): pass --repo NAME")


def read_task_file(path: Path) -> str:
    """A task or bug report from a file (`-` reads stdin); at most MAX_TASK_FILE bytes are read."""
    import sys

    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(MAX_TASK_FILE)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_TASK_FILE)
    except OSError as e:
        raise InputError(f"cannot read task file {path}: {e.strerror or e}: give a text file") from e
    if b"\0" in data[:4096]:
        raise InputError(f"task file {path} is binary: give the task or bug report as text")
    return data.decode("utf-8", errors="replace")


def embed_if_needed(store: Store, repo: str, progress: Callable[[str, int, int], None] | None = None,
                    on_start: Callable[[str], None] | None = None) -> vectors.EmbedReport | None:
    """Embed a repository on first use, when a model is installed and it has no embeddings yet."""
    status = repo_status(store, repo)
    if status["embedded"] or not status["files"]:
        return None
    model = embed.load()
    if isinstance(model, embed.Missing):
        return None
    if on_start:
        on_start(f"embedding {repo} once ({status['files']:,} files; later ingests embed only what changed)")
    return vectors.sync(store, repo, model, progress=progress)
