"""What every language's resolver shares: targets, the edge set, the `name_only` rule, the chain limit, and the
per-project table cache. A language module keeps only what is particular to its language.

Edge conventions are in `ingest/facts.py`; the rules here are the ones whose numbers must agree across languages,
so that a confidence means the same thing whichever language produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import NamedTuple, TypeVar

from kg.ingest.facts import Edge, ParsedFile

Project = Mapping[str, ParsedFile]
Table = TypeVar("Table")

# How far resolution follows a chain of facts: base classes (JS `extends`, Go embedding, Python's MRO), re-exports,
# a variable typed by the result of a call on a variable typed by ... Real code stays within a handful of links.
# Cycles (`class A extends B`, `class B extends A` parse fine) are cut by a visited set where a lookup can branch,
# and by this limit where it cannot; the limit also bounds the Python stack a lookup uses, far below its 1000 frames.
MAX_CHAIN = 24

# An ambiguous call (`x.save()` with x of unknown type) gets one edge per project method of that name, each at
# confidence 1/n, never above NAME_ONLY_CEILING: a guess stays a guess. Beyond NAME_ONLY_MAX candidates the name says
# too little (`get`, `run`) and no edge is drawn at all.
NAME_ONLY_MAX = 8
NAME_ONLY_CEILING = 0.5

INFERRED_CONFIDENCE = 0.9  # the receiver's type was inferred (`x = new C()`, `x := NewT()`, an annotation)
ARGUMENT_CONFIDENCE = 0.5  # a function handed to another call, which may (or may not) call it


class Target(NamedTuple):
    """What an edge points at: a qname or external name, and its kind (`symbol`, `module`, `external`, `builtin`,
    `unresolved`)."""

    name: str
    kind: str


class Method(NamedTuple):
    """A method found on a type or on one of its bases (embedded types in Go), `depth` steps up (0: its own)."""

    target: Target
    depth: int


def name_only_confidence(candidates: int) -> float | None:
    """Confidence of each of `candidates` same-named targets of an ambiguous call, or None when none is drawn."""
    if not 0 < candidates <= NAME_ONLY_MAX:
        return None
    return min(NAME_ONLY_CEILING, 1.0 / candidates)


class EdgeSet:
    """The outgoing edges of one file: the first edge for a (kind, source, target, line, resolution) wins, so a
    resolver can try rules from the strongest down without drawing one edge twice."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, str, str, int, str], Edge] = {}

    def __len__(self) -> int:
        return len(self._edges)

    def emit(self, kind: str, source: str, target: Target, line: int, resolution: str, confidence: float = 1.0) -> None:
        edge = Edge(kind, source, target.name, target.kind, line, resolution, round(confidence, 3))  # type: ignore[arg-type]
        self._edges.setdefault((kind, source, target.name, line, resolution), edge)

    def name_only(self, source: str, line: int, candidates: Iterable[str], discount: float = 1.0) -> None:
        """CALLS edges from `source` to each candidate symbol (see NAME_ONLY_MAX); `discount` scales the confidence
        down for names that more often mean something outside the project (JS `xs.map()`)."""
        candidates = list(candidates)
        confidence = name_only_confidence(len(candidates))
        if confidence is None:
            return
        for qname in candidates:
            self.emit("CALLS", source, Target(qname, "symbol"), line, "name_only", confidence * discount)

    def edges(self) -> list[Edge]:
        return list(self._edges.values())


def per_project(build: Callable[..., Table], reuse: bool = False) -> Callable[[Project], Table]:
    """`build(project)`, remembered for the last project mapping it was called with.

    The pipeline hands `Language.resolve` the same mapping for every file of a run and a new mapping after each
    change (ingest.project never mutates one in place), so the identity of the mapping, with its size as a guard,
    says when the table must be rebuilt. Only the last table is kept. With `reuse`, `build(project, previous)` gets
    the table it replaces (None at first), to take over what did not change instead of rebuilding it.
    """
    last: list = []  # [project, its size, table]

    def table(project: Project) -> Table:
        if not (last and last[0] is project and last[1] == len(project)):
            previous = last[2] if last else None
            last.clear()  # the old table is released before the new one is built (only `build` may keep it)
            last[:] = [project, len(project), build(project, previous) if reuse else build(project)]
        return last[2]

    return table


class Tally:
    """Rows `(key, *value)` of every module of a project, grouped by key with their multiplicity: a project-wide
    table (Python: which classes define a method of each name; what flows into each parameter) that the pipeline
    keeps up to date file by file (`add` a changed file's new rows, `remove` its old ones: ingest.project), instead
    of rebuilding it from every module after each change. `version` moves on every change, so tables derived from
    it know when they are stale.

    With `load` (key → that group as saved, None when none), groups are read one by one when first needed: a new
    process reads the few groups its resolution asks for, not the table. `changed` holds the keys of the groups
    changed since the owner last saved them (`take_changed`)."""

    def __init__(self, rows: Iterable[Iterable[tuple]] = (),
                 load: Callable[[Hashable], dict[tuple, int] | None] | None = None) -> None:
        self._groups: dict[Hashable, dict[tuple, int]] = {}  # key → value → count (an empty one: known to be none)
        self._load = load
        self.version = 0
        self.changed: set[Hashable] = set()
        for each in rows:
            self.add(each)

    def _group(self, key: Hashable) -> dict[tuple, int]:
        counts = self._groups.get(key)
        if counts is None:
            counts = self._groups[key] = (self._load(key) or {}) if self._load is not None else {}
        return counts

    def add(self, rows: Iterable[tuple], times: int = 1) -> None:
        groups, changed = self._groups, self.changed
        for row in rows:  # (plain dicts: a Counter's Python-level __missing__ doubled the time of a new process)
            key = row[0]
            counts = groups.get(key)
            if counts is None:
                counts = self._group(key)
            value = row[1:]
            left = counts.get(value, 0) + times
            if left > 0:
                counts[value] = left
            else:
                counts.pop(value, None)
            changed.add(key)
        self.version += 1

    def remove(self, rows: Iterable[tuple]) -> None:
        self.add(rows, -1)

    def get(self, key: Hashable) -> Mapping[tuple, int]:
        """value → how many rows of the project have it under `key` (empty when none)."""
        counts = self._groups.get(key)
        return counts if counts is not None else self._group(key)

    def groups(self, keys: Iterable[Hashable] | None = None) -> dict[Hashable, dict[tuple, int]]:
        """The groups of `keys` (every group in memory when None), an empty one for a key that has no rows."""
        return {key: self.get(key) for key in (self._groups if keys is None else keys)}

    @property
    def partial(self) -> bool:
        """Whether only the groups read so far are in memory (a tally read group by group)."""
        return self._load is not None

    def take_changed(self) -> set[Hashable]:
        changed, self.changed = self.changed, set()
        return changed

    def __eq__(self, other: object) -> bool:
        """Same rows (for tallies held whole in memory)."""
        return isinstance(other, Tally) and ({k: v for k, v in self._groups.items() if v} ==
                                             {k: v for k, v in other._groups.items() if v})

    __hash__ = None  # type: ignore[assignment]


def tally(project: Project, name: str, of: Callable[[ParsedFile], Iterable[tuple]]) -> Tally:
    """The `Tally` of the rows `of(parse)` of every module. A language lists such functions in its `facets` (name →
    function of one parse); the pipeline keeps their rows in its compact index and their tallies up to date, and
    its project mapping answers with those (ingest.project), so a project-wide table needs no parse loaded and no
    rebuild after a change. Any other mapping gets one built from every module."""
    kept = getattr(project, "tally", None)
    if kept is not None:
        return kept(name, of)
    return Tally(of(parsed) for parsed in project.values())
