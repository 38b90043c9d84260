"""What one repository looks like in memory between ingests: parses, the per-language module maps resolution
reads, and the reverse indexes that say which other files a change can affect.

The module maps handed to `Language.resolve` are replaced, never mutated in place, because languages cache their
lookup tables by the identity of that mapping.

Which files a change affects: a file whose *interface* (what other files' resolution can see of it) is unchanged
affects nobody but itself. When the change only adds or removes definitions (`Language.interface_change` says
which names), the affected files are those that mention one of those names. Otherwise they are its transitive
importers (through `Language.dependencies`) plus every file that mentions a name the change added or removed (a
call by bare name or on an object of unknown type may now find, or lose, a candidate).

Argument flows (languages with `summarize`, Python): what a file passes to parameters of functions, in it or in
other files, is part of what those functions' code resolves to, so a file's edges can depend on files it does not
import. Each file's flows are recomputed whenever the file is resolved again for the reasons above; the parameters
whose flows differ are looked up in what every file's edges read (`resolve_with` reports it, the graph keeps it
as `Module.flow_reads` for the next process), and those readers are resolved again too.

A new process starts from the compact project index the last run saved beside the parse cache (ingest.cache), not
from every parse: it loads each file's `FileFacts` up front, and the other columns (names mentioned, argument flows,
flows read: `Column`) and the project-wide tallies (Python's class members by name and argument flows by parameter,
kept up to date file by file and saved with the rows) only when the change needs them; `parsed` and the module maps
load a parse from the cache only when it is read. A one-file update costs what the change reads.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from kg.ingest.facts import Edge, ParsedFile
from kg.ingest.languages import Language, by_name
from kg.ingest.languages.core import Tally

_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def mentioned_names(source: bytes) -> frozenset[str]:
    """Every identifier-like token in a file: a cheap, language-neutral over-approximation of what it refers to."""
    return frozenset(token.decode() for token in set(_IDENTIFIER.findall(source)))


def interface(lang: Language, parsed: ParsedFile) -> Hashable:
    """What other files' resolution can see of `parsed`; by default everything but the line numbers of symbols."""
    own = getattr(lang, "interface", None)
    if own is not None:
        return own(parsed)
    symbols = tuple((s.qname, s.name, s.kind, s.parent) for s in parsed.symbols)
    return (parsed.module, symbols, repr(parsed.data))


def _defined_names(parsed: ParsedFile | None) -> set[tuple[str, str, str]]:
    return {(s.name, s.qname, s.kind) for s in parsed.symbols} if parsed else set()


class FileFacts(NamedTuple):
    """What the incremental update needs of one parse without loading it: the compact project index keeps one per
    code file (beside the parse cache, ingest.cache), so a new process loads only the parses a change reads."""

    hash: str  # content hash of the file these facts describe
    module: str
    lang: str
    dependencies: frozenset[str]  # Language.dependencies
    provides: frozenset[str]  # Language.provides, else the module name
    symbols: int
    facets: tuple[tuple[str, Any], ...]  # (name, value) per Language.facets: what project-wide tables read of it


def file_facts(parsed: ParsedFile, content_hash: str) -> FileFacts:
    lang = by_name(parsed.lang)
    provides = getattr(lang, "provides", None)
    facets = tuple((name, of(parsed)) for name, of in getattr(lang, "facets", {}).items())
    return FileFacts(content_hash, parsed.module, parsed.lang, frozenset(lang.dependencies(parsed)),
                     frozenset(provides(parsed) if provides else {parsed.module}), len(parsed.symbols), facets)


Loader = Callable[[str, str], "ParsedFile | None"]  # (path, content hash) → the parse, None when it cannot be had


class Parses(Mapping[str, ParsedFile]):
    """path → parse of every code file, each loaded from the parse cache the first time it is read (`loads` counts
    those reads): a one-file update reads the changed file and what its resolution looks at, not the repository."""

    def __init__(self, facts: Mapping[str, FileFacts], load: Loader) -> None:
        self._facts = facts
        self._load = load
        self._held: dict[str, ParsedFile] = {}
        self.loads = 0

    def __getitem__(self, path: str) -> ParsedFile:
        parsed = self._held.get(path)
        if parsed is None:
            facts = self._facts[path]
            parsed = self._load(path, facts.hash)
            if parsed is None:
                raise KeyError(path)
            self.loads += 1
            self._held[path] = parsed
        return parsed

    def __contains__(self, path: object) -> bool:
        return path in self._facts

    def __iter__(self) -> Iterator[str]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def put(self, path: str, parsed: ParsedFile) -> None:
        self._held[path] = parsed

    def drop(self, path: str) -> None:
        self._held.pop(path, None)


class Project(Mapping[str, ParsedFile]):
    """module → parse for one language, as `Language.resolve` reads it, loading parses only when read.
    `tally` answers a language's project-wide tables of facets from the ones RepoState keeps up to date (see
    ingest.languages.core.tally)."""

    def __init__(self, modules: dict[str, str], parses: Parses, tallies: Callable[[str], Tally]) -> None:
        self._paths = modules  # module → path
        self._parses = parses
        self._tallies = tallies

    def __getitem__(self, module: str) -> ParsedFile:
        return self._parses[self._paths[module]]

    def __contains__(self, module: object) -> bool:
        return module in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def tally(self, name: str, of: Callable[[ParsedFile], Any]) -> Tally:
        return self._tallies(name)


class StoredIndex(Protocol):
    """Where a new process reads the saved index from on demand (ingest.cache.ParseCache)."""

    def index_value(self, column: str, path: str) -> Any: ...

    def index_column(self, column: str) -> dict[str, Any]: ...

    def index_tally(self, tally: str) -> bool: ...

    def index_tally_group(self, tally: str, key: str) -> Any: ...


class Column(MutableMapping[str, Any]):
    """path → one per-file value of the compact index (names mentioned, argument flows, flows read), read from the
    saved index only when asked: one path at a time, or every path when iterated. A one-file update whose interface
    and argument flows did not change reads the changed file's values, never the others'."""

    def __init__(self, name: str = "", stored: StoredIndex | None = None) -> None:
        self._name, self._stored = name, stored
        self._values: dict[str, Any] = {}
        self._gone: set[str] = set()  # paths known to have no value (deleted here, or none saved)
        self._complete = stored is None

    def __getitem__(self, path: str) -> Any:
        if path in self._values:
            return self._values[path]
        if self._complete or path in self._gone:
            raise KeyError(path)
        found = self._stored.index_value(self._name, path)
        if found is None:
            self._gone.add(path)
            raise KeyError(path)
        self._values[path] = found
        return found

    def __contains__(self, path: object) -> bool:
        try:
            self[path]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __setitem__(self, path: str, value: Any) -> None:
        self._values[path] = value
        self._gone.discard(path)

    def __delitem__(self, path: str) -> None:
        if path not in self:
            raise KeyError(path)
        del self._values[path]
        self._gone.add(path)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return iter(self._values)

    def __len__(self) -> int:
        self._fill()
        return len(self._values)

    def known(self, path: str) -> bool:
        """Whether this process knows the path's value (or that it has none) without reading the saved index."""
        return self._complete or path in self._values or path in self._gone

    def known_all(self) -> None:
        """Read every value not known yet (before the saved index is replaced whole)."""
        self._fill()

    def _fill(self) -> None:
        if not self._complete:
            for path, value in self._stored.index_column(self._name).items():
                if path not in self._values and path not in self._gone:
                    self._values[path] = value
            self._complete = True


FLOWS = "flows"  # the tally key suffix of a language's argument flows (see `RepoState.flow_tally`)


@dataclass
class RepoState:
    facts: dict[str, FileFacts] = field(default_factory=dict)  # path → compact facts, code files only
    mentions: Column = field(default_factory=Column)  # path → names the file mentions
    edges: dict[str, list[Edge]] = field(default_factory=dict)  # path → resolved outgoing edges
    flows: Column = field(default_factory=Column)  # path → argument flows (languages with `summarize`)
    reads: Column = field(default_factory=Column)  # path → argument flows its edges read
    load: Loader = lambda path, content_hash: None  # noqa: E731 — where parses not in memory come from
    dirty: set[str] = field(default_factory=set)  # paths whose index rows changed since the last `take_dirty`
    _projects: dict[str, Project] = field(default_factory=dict)  # lang → module → parse
    # "lang:facet" and "lang:flows" → project-wide tallies, kept up to date file by file and saved with the index
    _tallies: dict[str, Tally] = field(default_factory=dict)
    _unsaved: set[str] = field(default_factory=set)  # tallies built here, whose saved copy (if any) is stale
    _stale_flows: set[str] = field(default_factory=set)  # paths replaced or deleted whose flows are not recounted yet
    _stored: StoredIndex | None = None  # the saved index this state was seeded from

    def __post_init__(self) -> None:
        self.parsed = Parses(self.facts, self.load)  # path → parse

    # ── the compact index ─────────────────────────────────────────────────────────────────────────────────────

    def seed(self, facts: Mapping[str, FileFacts], stored: StoredIndex) -> None:
        """Take over a saved index (its facts; the other columns and the tallies are read from `stored` when
        needed) in a process that holds nothing yet."""
        self.facts.update(facts)
        self.mentions, self.flows, self.reads = (Column(name, stored) for name in ("mentions", "flows", "reads"))
        self._stored = stored
        self._projects.clear()
        self._tallies.clear()
        self._unsaved.clear()

    def warm(self) -> None:
        """Read every column and tally of the saved index now (a long-running watcher: no read on an edit)."""
        for column in (self.mentions, self.flows, self.reads):
            column.known_all()
        for lang_name in {facts.lang for facts in self.facts.values()}:
            lang = by_name(lang_name)
            for name in getattr(lang, "facets", {}):
                self._facet_tally(lang_name, name)
            if getattr(lang, "summarize", None) is not None:
                self.flow_tally(lang_name)

    def index_changes(self, dirty: set[str]) -> tuple[dict[str, FileFacts], list[str], dict[str, dict[str, Any]],
                                                      dict[str, tuple[bool, dict]], bool]:
        """What to save of the index after a run that changed the rows of `dirty` (see ingest.cache.save_index):
        their facts, the deleted paths, the column values this process knows, the tallies that changed since they
        were saved, and whether this is the whole index."""
        whole = self.facts.keys() <= dirty
        facts = {p: self.facts[p] for p in dirty if p in self.facts}
        named = (("mentions", self.mentions), ("flows", self.flows), ("reads", self.reads))
        if whole:  # the saved rows go: what was only there is read first
            for _name, column in named:
                column.known_all()
        columns = {name: {p: column.get(p) for p in facts if column.known(p)} for name, column in named}
        tallies = {}
        for key, kept in self._tallies.items():
            complete = whole or key in self._unsaved
            changed = kept.take_changed()
            if whole and kept.partial:  # read group by group: not saved whole (the next process builds it anew)
                continue
            if complete or changed:
                tallies[key] = (complete, kept.groups(None if complete else changed))
        self._unsaved.clear()
        return facts, [p for p in dirty if p not in self.facts], columns, tallies, whole

    def take_dirty(self) -> set[str]:
        dirty, self.dirty = self.dirty, set()
        return dirty

    def replace(self, changed: Mapping[str, tuple[ParsedFile, frozenset[str], str]], deleted: Iterable[str]) -> None:
        """Swap in new parses (with their names and content hashes) and drop deleted files; module maps are rebuilt
        for the languages touched."""
        touched = set()
        for path in deleted:
            self._tally_facets(self.facts.get(path), -1)
            old = self.facts.pop(path, None)
            self.parsed.drop(path)
            self.mentions.pop(path, None)
            self.edges.pop(path, None)
            self.reads.pop(path, None)
            self.dirty.add(path)
            self._stale_flows.add(path)
            if old:
                touched.add(old.lang)
        for path, (parsed, names, content_hash) in changed.items():
            old = self.facts.get(path)
            if old:
                touched.add(old.lang)
            new = self.facts[path] = file_facts(parsed, content_hash)
            if old is None or old.facets != new.facets:  # (a tally that did not change is not saved again)
                self._tally_facets(old, -1)
                self._tally_facets(new, 1)
            self.parsed.put(path, parsed)
            self.mentions[path] = names
            self.dirty.add(path)
            self._stale_flows.add(path)
            touched.add(parsed.lang)
        for lang in touched:
            self._projects[lang] = self._project_of(lang)

    def project(self, lang: str) -> Project:
        if lang not in self._projects:
            self._projects[lang] = self._project_of(lang)
        return self._projects[lang]

    def _project_of(self, lang: str) -> Project:
        return Project({f.module: path for path, f in self.facts.items() if f.lang == lang}, self.parsed,
                       lambda name: self._facet_tally(lang, name))

    def _facet_tally(self, lang: str, name: str) -> Tally:
        """The rows of facet `name` of every file of `lang` (see `_tally`)."""
        return self._tally(f"{lang}:{name}", lambda: Tally(
            value for facts in self.facts.values() if facts.lang == lang
            for facet, value in facts.facets if facet == name))

    def _tally(self, key: str, build: Callable[[], Tally]) -> Tally:
        """A project-wide tally: the one in memory, else the one saved with the index, else `build()` from the rows."""
        found = self._kept_tally(key)
        if found is None:
            found = self._tallies[key] = build()
            self._unsaved.add(key)
        return found

    def _kept_tally(self, key: str) -> Tally | None:
        """The tally in memory or saved with the index, read group by group (None when neither: one built later
        reflects every change made until then, so a change needs counting only into a tally that exists)."""
        found = self._tallies.get(key)
        stored = self._stored
        if found is None and stored is not None and stored.index_tally(key):
            found = self._tallies[key] = Tally(load=lambda group: stored.index_tally_group(key, group))
        return found

    def _tally_facets(self, facts: FileFacts | None, times: int) -> None:
        """Count a file's facet rows in (1) or out (-1) of the tallies that exist."""
        if facts is not None:
            for name, rows in facts.facets:
                found = self._kept_tally(f"{facts.lang}:{name}")
                if found is not None:
                    found.add(rows, times)

    def resolve(self, paths: Iterable[str]) -> dict[str, list[Edge]]:
        resolved = {}
        for path in paths:
            parsed = self.parsed[path]
            lang = by_name(parsed.lang)
            if getattr(lang, "resolve_with", None) is not None:
                resolved[path], self.reads[path] = lang.resolve_with(parsed, self.project(parsed.lang),
                                                                     self.flow_tally(parsed.lang))
            else:
                resolved[path] = lang.resolve(parsed, self.project(parsed.lang))
            self.edges[path] = resolved[path]
            self.dirty.add(path)
        return resolved

    # ── argument flows ────────────────────────────────────────────────────────────────────────────────────────

    def flow_tally(self, lang_name: str) -> Tally:
        """The argument flows of every file of a language, grouped by parameter (those not known yet are computed:
        a first ingest, or an index without them): built once, then kept up to date by `changed_flows` (and here,
        for files replaced or deleted without it: the graph had lost them, or a module was renamed)."""
        lang = by_name(lang_name)

        def build() -> Tally:
            project = self.project(lang_name)
            known = set(self.flows)
            for path, facts in self.facts.items():
                if facts.lang == lang_name and (path not in known or path in self._stale_flows):
                    self.flows[path] = lang.summarize(self.parsed[path], project)
                    self.dirty.add(path)
            return Tally(self.flows[path] for path, facts in self.facts.items() if facts.lang == lang_name)

        kept = self._kept_tally(f"{lang_name}:{FLOWS}")
        if kept is None:
            kept = self._tally(f"{lang_name}:{FLOWS}", build)
        else:
            for path in sorted(self._stale_flows):
                facts = self.facts.get(path)
                if facts is None or facts.lang == lang_name:
                    old = self.flows.pop(path, None)
                    new = lang.summarize(self.parsed[path], self.project(lang_name)) if facts else None
                    if new is not None:
                        self.flows[path] = new
                    kept.remove(old or ())
                    kept.add(new or ())
                    self.dirty.add(path)
        self._stale_flows = {p for p in self._stale_flows if p in self.facts and self.facts[p].lang != lang_name}
        return kept

    def changed_flows(self, paths: Iterable[str], previous: Mapping[str, ParsedFile | None],
                      deleted: Iterable[str]) -> set[str]:
        """Recompute the argument flows of `paths` (the files about to be resolved again) and forget those of
        `deleted`; return the flows (parameter keys) that differ from before. `previous` holds the earlier parse of
        changed and deleted files: a new process, which has no flows in memory, computes the earlier ones from it."""
        keys: set[str] = set()
        old_projects: dict[str, dict[str, ParsedFile]] = {}
        for path in [*paths, *deleted]:
            parsed = self.parsed.get(path) or previous.get(path)
            lang = by_name(parsed.lang) if parsed is not None else None
            if lang is None or getattr(lang, "summarize", None) is None:
                continue
            self._stale_flows.discard(path)
            counted = old = self.flows.pop(path, None)  # (what the tally holds of the file)
            if old is None:
                before = previous.get(path, self.parsed.get(path)) if path in previous else self.parsed.get(path)
                if before is not None:
                    if parsed.lang not in old_projects:
                        old_projects[parsed.lang] = self._earlier_project(parsed.lang, previous)
                    old = lang.summarize(before, old_projects[parsed.lang])
            new = lang.summarize(self.parsed[path], self.project(parsed.lang)) if path in self.parsed else None
            if new is not None:
                self.flows[path] = new
            self.dirty.add(path)
            differ = (old or frozenset()) ^ (new or frozenset())
            keys |= {row[0] for row in differ}
            flows = self._kept_tally(f"{parsed.lang}:{FLOWS}")
            if flows is not None and counted != new:
                flows.remove((counted or frozenset()) - (new or frozenset()))
                flows.add((new or frozenset()) - (counted or frozenset()))
        return keys

    def _earlier_project(self, lang_name: str, previous: Mapping[str, ParsedFile | None]) -> dict[str, ParsedFile]:
        """The module map as it was before the change (`previous`: the earlier parse of each changed or deleted
        file, None for a file that is new)."""
        earlier = {p: self.parsed[p] for p, facts in self.facts.items() if facts.lang == lang_name}
        for path, before in previous.items():
            if before is None:
                earlier.pop(path, None)
            elif before.lang == lang_name:
                earlier[path] = before
        return {parsed.module: parsed for parsed in earlier.values()}

    def flow_readers(self, keys: set[str]) -> tuple[set[str], bool]:
        """Files whose edges read one of the argument flows `keys`, as far as this process knows, and whether it
        knows for every file (a new process learns what the others read from the graph)."""
        readers = {path for path, reads in self.reads.items() if not keys.isdisjoint(reads)}
        complete = all(path in self.reads for path, facts in self.facts.items()
                       if getattr(by_name(facts.lang), "resolve_with", None) is not None)
        return readers, complete

    def affected_by(self, old: Mapping[str, ParsedFile | None], deleted: Mapping[str, ParsedFile | None]) -> set[str]:
        """Files other than the changed ones whose edges may differ after the change (see the module docstring).

        `old` maps each changed path to its previous parse (None if unknown or new); `deleted` likewise.
        """
        changed: dict[str, list[ParsedFile]] = defaultdict(list)  # lang → parses whose interface changed
        names: set[str] = set()
        for path, before in [*old.items(), *deleted.items()]:
            after = self.parsed.get(path)
            if before and after and before.lang == after.lang:
                lang = by_name(after.lang)
                if interface(lang, before) == interface(lang, after):
                    continue
                shallow = getattr(lang, "interface_change", None)
                touched = shallow(before, after) if shallow else None
                if touched is not None:  # only definitions came or went: whoever names them may change
                    names |= touched
                    continue
            for parse in (before, after):
                if parse:
                    changed[parse.lang].append(parse)
            names |= {name for name, _, _ in _defined_names(before) ^ _defined_names(after)}
            if (before is None) != (after is None):  # a module appearing or vanishing: importers of it may change
                names.add((before or after).module.rsplit(".", 1)[-1])

        affected = set()
        for lang, parses in changed.items():
            affected |= self._importers(lang, parses)
        if names:
            affected |= {path for path, mentioned in self.mentions.items() if not names.isdisjoint(mentioned)}
        return affected - set(old) - set(deleted)

    def _importers(self, lang_name: str, parses: list[ParsedFile]) -> set[str]:
        """Paths of the files that depend on `parses`, directly or through other files (transitive closure)."""
        lang = by_name(lang_name)
        dependents: dict[str, set[str]] = defaultdict(set)  # name → paths of the files that depend on it
        for path, facts in self.facts.items():
            if facts.lang == lang_name:
                for dependency in facts.dependencies:
                    dependents[dependency].add(path)
        seen: set[str] = set()
        # A file is depended on by its module name, or by what its language says it provides (Go: its package).
        provides = getattr(lang, "provides", None) or (lambda parsed: {parsed.module})
        frontier = [name for p in parses for name in provides(p)]
        while frontier:
            name = frontier.pop()
            for dependent in dependents.get(name, ()):
                if dependent not in seen:
                    seen.add(dependent)
                    frontier.extend(self.facts[dependent].provides)
        return seen
