"""What one repository looks like in memory between ingests: parses, the per-language module maps resolution
reads, and the reverse indexes that say which other files a change can affect.

The module maps handed to `Language.resolve` are replaced, never mutated in place, because languages cache their
lookup tables by the identity of that mapping.

Which files a change affects: a file whose *interface* (what other files' resolution can see of it) is unchanged
affects nobody but itself. When the change only adds or removes definitions (`Language.interface_change` says
which names), the affected files are those that mention one of those names. Otherwise they are its transitive
importers (through `Language.dependencies`) plus every file that mentions a name the change added or removed (a
call by bare name or on an object of unknown type may now find, or lose, a candidate).
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
    _projects: dict[str, dict[str, ParsedFile]] = field(default_factory=dict)  # lang → module → parse

    def replace(self, changed: Mapping[str, tuple[ParsedFile, frozenset[str]]], deleted: Iterable[str]) -> None:
        """Swap in new parses and drop deleted files; module maps are rebuilt for the languages touched."""
        touched = set()
        for path in deleted:
            old = self.parsed.pop(path, None)
            self.mentions.pop(path, None)
            self.edges.pop(path, None)
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
            resolved[path] = by_name(parsed.lang).resolve(parsed, self.project(parsed.lang))
            self.edges[path] = resolved[path]
        return resolved

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
