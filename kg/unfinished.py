"""Whether a repository's last ingest finished. A bulk ingest marks its Repo as being written until its last step
(queries/ingest/repo_put.cypher, repo_model_put.cypher), so a run that died half way (Neo4j or kg killed) leaves a
mark on a graph that may hold modules and symbols without their calls and imports. The mark says which step the
write had reached (queries/ingest/repo_writing_step_put.cypher), so the note names what may be missing. Answers read
from it say so in one line instead of passing for complete; dead code, which reads a missing edge as "unused",
refuses."""

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
    return note_for(repo, rows[0]["since"], rows[0]["root"], rows[0]["step"]) if rows else None


# What a write interrupted at each step (kg.ingest.writer) may have left out: a step's files are marked complete
# only at its end (code files after their edges, documents after theirs).
MISSING = {"nodes": "while writing modules and symbols, so symbols, calls, imports and documents may be missing",
           "edges": "while writing calls and imports, so calls, imports, module dependencies and documents may be "
                    "missing",
           "documents": "while writing documents, so documents may be missing (its code is complete)"}


def note_for(repo: str, since: object, root: str | None, step: str | None = None) -> str | None:
    """The line for `repo` whose Repo node carries the mark `since` (None: its last ingest finished), interrupted at
    `step` (None: not recorded, or a write in one transaction). An answer that read the Repo node in its own request
    (queries/reach/answer.cypher) asks no second time."""
    if since is None:
        return None
    started = str(since)[:19].replace("T", " ")
    command = f"kg ingest {shlex.quote(root or 'PATH')} --repo {shlex.quote(repo)}"
    missing = f" {MISSING[step]}" if step in MISSING else ", so part of it may be missing"
    return (f"repository {repo} was not completely ingested (interrupted: the ingest started at {started} UTC did "
            f"not finish{missing}): run `{command}` again")


def unfinished_notes(store: Store | QueryApiReader, repo: str) -> list[str]:
    note = unfinished_note(store, repo)
    return [note] if note else []


def require_finished(store: Store | QueryApiReader, repo: str, question: str) -> None:
    """Refuse `question` (one whose answer a missing edge turns wrong, not just short) on an unfinished repository."""
    note = unfinished_note(store, repo)
    if note:
        raise InputError(f"{note}; {question} is not answered until then")
