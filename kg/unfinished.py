"""Whether a repository's last ingest finished. A bulk ingest marks its Repo as being written until its last step
(queries/ingest/repo_put.cypher, repo_model_put.cypher), so a run that died half way (Neo4j or kg killed) leaves a
mark on a graph that may hold modules and symbols without their calls and imports. Answers read from it say so in
one line instead of passing for complete; dead code, which reads a missing edge as "unused", refuses."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from kg.errors import InputError

if TYPE_CHECKING:
    from kg.query_api import QueryApiReader
    from kg.store import Store


def unfinished_note(store: Store | QueryApiReader, repo: str) -> str | None:
    """The one line to show with an answer about `repo` when its last ingest did not finish, else None."""
    rows = store.read("repo_unfinished", repo=repo)
    return note_for(repo, rows[0]["since"], rows[0]["root"]) if rows else None


def note_for(repo: str, since: object, root: str | None) -> str | None:
    """The line for `repo` whose Repo node carries the mark `since` (None: its last ingest finished). An answer that
    read the Repo node in its own request (queries/reach/answer.cypher) asks no second time."""
    if since is None:
        return None
    started = str(since)[:19].replace("T", " ")
    command = f"kg ingest {shlex.quote(root or 'PATH')} --repo {shlex.quote(repo)}"
    return (f"repository {repo} was not completely ingested (interrupted: the ingest started at {started} UTC did "
            f"not finish, so calls and imports may be missing): run `{command}` again")


def unfinished_notes(store: Store | QueryApiReader, repo: str) -> list[str]:
    note = unfinished_note(store, repo)
    return [note] if note else []


def require_finished(store: Store | QueryApiReader, repo: str, question: str) -> None:
    """Refuse `question` (one whose answer a missing edge turns wrong, not just short) on an unfinished repository."""
    note = unfinished_note(store, repo)
    if note:
        raise InputError(f"{note}; {question} is not answered until then")
