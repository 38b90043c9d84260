"""Lookup tables a resolver builds over a whole project, built once per project mapping.

The pipeline hands `Language.resolve` the same mapping for every file of a run and a new mapping after each
change (ingest.project never mutates one in place), so the identity of the mapping, with its size as a guard,
says when a table must be rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from kg.ingest.facts import ParsedFile

Table = TypeVar("Table")
Project = Mapping[str, ParsedFile]


def per_project(build: Callable[[Project], Table]) -> Callable[[Project], Table]:
    """`build(project)`, remembered for the last project mapping it was called with."""
    last: list = []

    def table(project: Project) -> Table:
        if not (last and last[0] is project and last[1] == len(project)):
            last[:] = [project, len(project), build(project)]
        return last[2]

    return table


def facets(project: Project, name: str, of: Callable[[ParsedFile], Any]) -> list[Any]:
    """`of(parse)` for every module of the project, in its order. A language lists such functions in its `facets`
    (name → function of one parse); the pipeline keeps their values in its compact index, so a whole-project table
    built from them needs no parse loaded (the project mapping's `facet` answers from the index)."""
    stored = getattr(project, "facet", None)
    if stored is not None:
        return [stored(module, name, of) for module in project]
    return [of(parsed) for parsed in project.values()]
