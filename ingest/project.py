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
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from kg.ingest.facts import Edge, ParsedFile
from kg.ingest.languages import Language, by_name

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


@dataclass
class RepoState:
    parsed: dict[str, ParsedFile] = field(default_factory=dict)  # path → parse, code files only
    mentions: dict[str, frozenset[str]] = field(default_factory=dict)  # path → names the file mentions
    edges: dict[str, list[Edge]] = field(default_factory=dict)  # path → resolved outgoing edges
    flows: dict[str, frozenset] = field(default_factory=dict)  # path → argument flows (languages with `summarize`)
    reads: dict[str, frozenset[str]] = field(default_factory=dict)  # path → argument flows its edges read
    _projects: dict[str, dict[str, ParsedFile]] = field(default_factory=dict)  # lang → module → parse
    _flow_maps: dict[str, dict[str, frozenset]] = field(default_factory=dict)  # lang → module → flows

    def replace(self, changed: Mapping[str, tuple[ParsedFile, frozenset[str]]], deleted: Iterable[str]) -> None:
        """Swap in new parses and drop deleted files; module maps are rebuilt for the languages touched."""
        touched = set()
        for path in deleted:
            old = self.parsed.pop(path, None)
            self.mentions.pop(path, None)
            self.edges.pop(path, None)
            self.reads.pop(path, None)
            if old:
                touched.add(old.lang)
        for path, (parsed, names) in changed.items():
            old = self.parsed.get(path)
            if old:
                touched.add(old.lang)
            self.parsed[path] = parsed
            self.mentions[path] = names
            touched.add(parsed.lang)
        for lang in touched:
            self._projects[lang] = {p.module: p for p in self.parsed.values() if p.lang == lang}

    def project(self, lang: str) -> dict[str, ParsedFile]:
        if lang not in self._projects:
            self._projects[lang] = {p.module: p for p in self.parsed.values() if p.lang == lang}
        return self._projects[lang]

    def resolve(self, paths: Iterable[str]) -> dict[str, list[Edge]]:
        resolved = {}
        for path in paths:
            parsed = self.parsed[path]
            lang = by_name(parsed.lang)
            if getattr(lang, "resolve_with", None) is not None:
                resolved[path], self.reads[path] = lang.resolve_with(parsed, self.project(parsed.lang),
                                                                     self.flow_map(parsed.lang))
            else:
                resolved[path] = lang.resolve(parsed, self.project(parsed.lang))
            self.edges[path] = resolved[path]
        return resolved

    # ── argument flows ────────────────────────────────────────────────────────────────────────────────────────

    def flow_map(self, lang_name: str) -> dict[str, frozenset]:
        """Module → argument flows of every file of a language (those not known yet are computed: a first ingest,
        or a new process). Replaced, never mutated, when a file's flows change."""
        if lang_name not in self._flow_maps:
            lang = by_name(lang_name)
            project = self.project(lang_name)
            flows = {}
            for path, parsed in self.parsed.items():
                if parsed.lang == lang_name:
                    if path not in self.flows:
                        self.flows[path] = lang.summarize(parsed, project)
                    flows[parsed.module] = self.flows[path]
            self._flow_maps[lang_name] = flows
        return self._flow_maps[lang_name]

    def changed_flows(self, paths: Iterable[str], previous: Mapping[str, ParsedFile | None],
                      deleted: Iterable[str]) -> set[str]:
        """Recompute the argument flows of `paths` (the files about to be resolved again) and forget those of
        `deleted`; return the flows (parameter keys) that differ from before. `previous` holds the earlier parse of
        changed and deleted files: a new process, which has no flows in memory, computes the earlier ones from it."""
        keys: set[str] = set()
        old_projects: dict[str, dict[str, ParsedFile]] = {}
        touched: set[str] = set()
        for path in [*paths, *deleted]:
            parsed = self.parsed.get(path) or previous.get(path)
            lang = by_name(parsed.lang) if parsed is not None else None
            if lang is None or getattr(lang, "summarize", None) is None:
                continue
            touched.add(parsed.lang)
            old = self.flows.pop(path, None)
            if old is None:
                before = previous.get(path, self.parsed.get(path)) if path in previous else self.parsed.get(path)
                if before is not None:
                    if parsed.lang not in old_projects:
                        old_projects[parsed.lang] = self._earlier_project(parsed.lang, previous)
                    old = lang.summarize(before, old_projects[parsed.lang])
            new = lang.summarize(self.parsed[path], self.project(parsed.lang)) if path in self.parsed else None
            if new is not None:
                self.flows[path] = new
            keys |= {row[0] for row in (old or frozenset()) ^ (new or frozenset())}
        for lang_name in touched:
            self._flow_maps.pop(lang_name, None)
        return keys

    def _earlier_project(self, lang_name: str, previous: Mapping[str, ParsedFile | None]) -> dict[str, ParsedFile]:
        """The module map as it was before the change (`previous`: the earlier parse of each changed or deleted
        file, None for a file that is new)."""
        earlier = {p: parsed for p, parsed in self.parsed.items() if parsed.lang == lang_name}
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
        complete = all(path in self.reads for path, parsed in self.parsed.items()
                       if getattr(by_name(parsed.lang), "resolve_with", None) is not None)
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
        project = self.project(lang_name)
        dependents: dict[str, set[str]] = defaultdict(set)
        for parsed in project.values():
            for dependency in lang.dependencies(parsed):
                dependents[dependency].add(parsed.module)
        seen: set[str] = set()
        # A file is depended on by its module name, or by what its language says it provides (Go: its package).
        provides = getattr(lang, "provides", None) or (lambda parsed: {parsed.module})
        frontier = [name for p in parses for name in provides(p)]
        while frontier:
            name = frontier.pop()
            for dependent in dependents.get(name, ()):
                if dependent not in seen:
                    seen.add(dependent)
                    frontier.extend(provides(project[dependent]))
        return {project[m].path for m in seen}
