"""Turn what a person types (`Cart.checkout`, `shop.cart`, `shop/cart.py`, `shop/cart.py:20`) into one node.

Guessing is worse than asking: an ambiguous name raises `AmbiguousName` with every candidate, an unknown one an
`InputError` in one line. Both are kg errors, so the CLI prints them without a traceback and MCP returns them as
tool errors.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import InputError, shorten
from kg.navigate import names
from kg.unfinished import note_for

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

_PATH_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_MAX_CANDIDATES = 20
_SUGGESTIONS = 3
CANDIDATE_ROWS = _MAX_CANDIDATES * 5  # find_symbol rows read for one name
# Errors name CLI flags and commands; kg.navigate.mcp_server rewrites them into MCP arguments and tools.
REPO_HINT = "pass --repo"


@dataclass(frozen=True)
class Target:
    repo: str
    qname: str
    kind: str  # function | method | class | variable | module
    path: str
    line: int
    end_line: int | None = None
    elsewhere: str | None = None  # the current folder's repository, when the name was found only outside it
    outside: str | None = None  # why the current folder has no repository of its own (see `place`), when it has none
    inherited_by: str | None = None  # `Class.member` typed, the class not defining it: the class (qname)

    @property
    def is_module(self) -> bool:
        return self.kind == "module"

    def label(self) -> str:
        return f"{self.qname} ({self.kind}, {self.path}:{self.line})"

    def to_dict(self) -> dict:
        return {"repo": self.repo, "qname": self.qname, "kind": self.kind, "path": self.path, "line": self.line}


class AmbiguousName(InputError):
    """A name that fits several nodes; the message lists them so the caller can pick one."""

    def __init__(self, text: str, candidates: list[Target], place: bool = False) -> None:
        """`place`: `text` is a path:line, one candidate per repository holding the file (only --repo can choose)."""
        self.candidates = candidates
        shown = "\n".join(f"  {c.label()} in {c.repo}" for c in candidates[:_MAX_CANDIDATES])
        more = f"\n  … and {len(candidates) - _MAX_CANDIDATES} more" if len(candidates) > _MAX_CANDIDATES else ""
        repos = sorted({c.repo for c in candidates})
        if place or len({c.qname for c in candidates}) == 1:  # in several repositories: no longer name would help
            super().__init__(f"{shorten(text)} is in {len(repos)} repositories ({', '.join(repos)}): {REPO_HINT} "
                             f"with one of them\n{shown}{more}")
            return
        where = f"path:line or {REPO_HINT}" if len(repos) > 1 else "or path:line"
        super().__init__(f"{shorten(text)} is ambiguous ({len(candidates)} candidates): give a longer dotted name, "
                         f"{where}\n{shown}{more}")


_UNKNOWN = object()  # the current folder's repository, not yet looked up


def resolve(store: Store, text: str, repo: str | None = None, here: object = _UNKNOWN) -> Target:
    """The one symbol or module `text` names: in `repo` when given, else preferably in the repository of the current
    folder (`here`: what `place` says of it, looked up when not given), else in any (the target then says
    `elsewhere`, or `outside` when the folder is in no repository) unless the folder's repository was not completely
    ingested (the name may just not be written yet: an error says so)."""
    text = text.strip()
    if not text:
        raise InputError("empty symbol name: give a dotted name (Cart.checkout), a file path or path:line")
    located = at_line(text)
    if located:
        return _at_line(store, located["path"], int(located["line"]), repo, text, here)
    return resolve_rows(store, text, store.read("find_symbol", symbol=text, repo=repo, limit=CANDIDATE_ROWS), repo,
                        here)


def resolve_rows(store: Store, text: str, rows: list[dict], repo: str | None = None, here: object = _UNKNOWN) -> Target:
    """`resolve` for a dotted name or file path whose `find_symbol` rows (`rows`) were read already (by a query
    that also answers the question: queries/reach/answer.cypher); the store is read only for an error's hints."""
    # by repository and name, as find_symbol means to list them (its ORDER BY sorts only its UNION's last part)
    candidates = sorted((_target(r) for r in rows), key=lambda c: (c.repo, c.qname, c.kind, c.path))
    exact = [c for c in candidates if c.qname == text or c.path == text]
    if exact:
        candidates = exact
    if not candidates:
        candidates = _inherited(store, text, repo)
    if not candidates:
        raise InputError(_too_far(store, text, repo) or not_found(store, text, repo))
    if repo is None:
        candidates = _prefer_here(store, text, candidates, here)
    if len(candidates) > 1:
        symbols = [c for c in candidates if not c.is_module]
        if len(symbols) == 1 and all(c.qname == symbols[0].qname for c in candidates):
            return symbols[0]  # a package variable and its module share a dotted name: the symbol is meant
        raise AmbiguousName(text, candidates)
    return candidates[0]


def _inherited(store: Store, text: str, repo: str | None) -> list[Target]:
    """`Class.member` where the class does not define `member` but a base class does (`Flask.route`: Scaffold's):
    that base's member, once however many classes the name fits inherit it (flask's tests subclass Flask as
    `Flask`), said as inherited by the one with the shortest dotted name."""
    owner, dot, member = text.rpartition(".")
    if not (dot and owner and member.isidentifier()):
        return []
    rows = store.read("inherited_member", owner=owner, member=member, repo=repo)
    found: dict[tuple[str, str], Target] = {}
    for r in sorted(rows, key=lambda r: (len(r["owner"]), r["owner"])):
        found.setdefault((r["repo"], r["qname"]), Target(r["repo"], r["qname"], r["kind"], r["path"], r["line"] or 1,
                                                         r["end_line"], inherited_by=r["owner"]))
    return list(found.values())


INHERITED_DEPTH = 10  # base classes followed for `Class.member` (the bound written in queries/inherited_member.cypher)


def _too_far(store: Store, text: str, repo: str | None) -> str | None:
    """The error for `Class.member` when the class's bases go on past where the lookup stops (attack5 C7: a 1,000
    class chain said "no symbol named 'C999.m'", as if it did not exist)."""
    owner, dot, member = text.rpartition(".")
    if not (dot and owner and member.isidentifier()):
        return None
    rows = store.read("inherited_too_far", owner=owner, repo=repo)
    if not rows:
        return None
    where = "" if repo else f" in {rows[0]['repo']}"
    name = member if len(member) <= 80 else shorten(member)
    return (f"{rows[0]['owner']}{where} does not define {name}, nor does any of its base classes within "
            f"{INHERITED_DEPTH} steps, and its bases go further than kg looks: name the class that defines it "
            f"(try `kg find {member[:80]}` for fuzzy matches)")


def at_line(text: str) -> re.Match[str] | None:
    """`path:line` (a place, not a name) or None."""
    return _PATH_LINE.match(text.strip())


def unknown_repo(repo: str, known: list[str]) -> InputError:
    """The one-line error for a --repo the graph does not hold, naming those it does."""
    return InputError(f"no repository named {shorten(repo)} in the graph (have: {', '.join(known) or 'none'})")


def not_found(store: Store, text: str, repo: str | None) -> str:
    """The error for a name nothing has: the closest names when there are some (what `find` would list first)."""
    repos = store.read("repos")
    if repo and repo not in {r["repo"] for r in repos}:
        raise unknown_repo(repo, [r["repo"] for r in repos])
    where = f" in repository {shorten(repo)}" if repo else ""
    near = names.near(store, text, repo, fetch=50)
    here = None if repo else repo_at(repos)
    if here:  # the current folder's repository first, best first within
        near.sort(key=lambda r: r["repo"] != here[0])
    near = near[:_SUGGESTIONS]
    tail = _unfinished_tail(repos, repo)
    if not near:
        return (f"no symbol or module named {shorten(text)}{where}, nor any name close to it: "
                f"try `kg find {text[:80]}` for fuzzy matches (it also searches docstrings){tail}")
    shown = ", ".join(f"{r['qname']}" + ("" if repo else f" ({r['repo']})") for r in near)
    return (f"no symbol or module named {shorten(text)}{where}; closest: {shown} "
            f"(try `kg find {text[:80]}` for fuzzy matches){tail}")


def _unfinished_tail(repos: list[dict], repo: str | None) -> str:
    """"; <note>" for the repository a name or file was looked for in (`repo`, else the current folder's, else every
    one) when its ingest did not finish: what is missing there may just not be written yet. `repos`: their rows."""
    here = None if repo else repo_at(repos)
    looked_in = repo or (here[0] if here else None)  # None: every repository
    return "".join(f"; {note}" for r in repos if looked_in in (None, r["repo"])
                   and (note := note_for(r["repo"], r.get("writing"), r["root"], r.get("writing_step"))))


def _prefer_here(store: Store, text: str, candidates: list[Target], here: object) -> list[Target]:
    """The candidates in the current folder's repository when there are some; else all, marked `elsewhere` — unless
    that repository's ingest did not finish: what `text` names there may not be written yet, so another repository's
    answer would pass for its own. A folder in no repository (an empty folder, a clone not ingested yet) marks them
    `outside`: an answer from the only repository that has the name must say whose it is (a second clone would
    otherwise show the first one's file:line as its own)."""
    if here is _UNKNOWN:
        here = place(store.read("repos"))
    if isinstance(here, str):
        return [replace(c, outside=here) for c in candidates]
    if not isinstance(here, dict):
        return candidates
    mine = [c for c in candidates if c.repo == here["repo"]]
    if mine:
        return mine
    note = note_for(here["repo"], here.get("writing"), here.get("root"), here.get("writing_step"))
    if note:
        others = sorted({c.repo for c in candidates})
        shown = ", ".join(others[:_SUGGESTIONS]) + (f" and {len(others) - _SUGGESTIONS} more"
                                                   if len(others) > _SUGGESTIONS else "")
        raise InputError(f"{shorten(text)} is not in {here['repo']} (the current folder's repository): {note}; "
                         f"to ask another repository that has it ({shown}), {REPO_HINT}")
    return [replace(c, elsewhere=here["repo"]) for c in candidates]


def elsewhere_notes(targets: list[Target]) -> list[str]:
    """A note for each target found outside the current folder's repository (the answer is about another one) or
    found in a base class of the class typed (the answer is about the base's member)."""
    inherited = [f"{t.inherited_by} does not define {t.qname.rsplit('.', 1)[-1]}: this answer is about {t.qname}, "
                 "which it inherits" for t in targets if t.inherited_by]
    outside = list(dict.fromkeys(f"{t.outside}: this answer is about {t.repo}" for t in targets if t.outside))
    return inherited + outside + [f"{t.qname} is not in {t.elsewhere} (the current folder's repository): this "
                                  f"answer is about {t.repo}" for t in targets if t.elsewhere]


def resolve_all(store: Store, texts: list[str], repo: str | None = None) -> list[Target]:
    """Several targets that must live in one repository (a query walks one repository's graph)."""
    here = place(store.read("repos")) if repo is None else None
    targets = [resolve(store, t, repo, here) for t in texts]
    repos = sorted({t.repo for t in targets})
    if len(repos) > 1:
        raise InputError(f"the symbols belong to different repositories ({', '.join(repos)}): {REPO_HINT}")
    return targets


def pick_repo(store: Store, repo: str | None, here: Path | None = None) -> str:
    """The repository a whole-repo question is about: the one given, else the one the folder `here` (default: the
    current folder) belongs to, else the only one in the graph."""
    rows = store.read("repos")
    known = [r["repo"] for r in rows]
    if repo:
        if repo not in known:
            raise unknown_repo(repo, known)
        return repo
    found = repo_at(rows, here)
    if found:
        return found[0]
    if len(known) == 1:
        return known[0]
    if not known:
        raise InputError("the graph holds no repository: ingest one first (in a terminal: `kg ingest PATH`)")
    where = "that folder" if here else "the current folder"
    raise InputError(f"the graph holds {len(known)} repositories ({', '.join(known)}) and {where} is not in "
                     f"exactly one of them: {REPO_HINT}")


def repo_at(repos: list[dict], here: Path | None = None) -> tuple[str, Path] | None:
    """The ingested repository (name, root) the folder `here` (default: the current folder) belongs to: the innermost
    one whose root holds it, else the only one below it; None when none or several fit. `repos`: the `repos` query's
    rows. Every command that leaves out --repo infers it this way."""
    roots = {r["repo"]: Path(r["root"]) for r in repos if r["root"]}
    try:
        here = (here or Path.cwd()).resolve()
    except OSError:  # the current folder was deleted
        return None
    holding = sorted(((n, r) for n, r in roots.items() if here == r or r in here.parents),
                     key=lambda nr: len(nr[1].parts))
    if holding:
        innermost = [(n, r) for n, r in holding if r == holding[-1][1]]
        return innermost[0] if len(innermost) == 1 else None  # one folder ingested under two names: ask
    inside = [(n, r) for n, r in roots.items() if here in r.parents]
    return inside[0] if len(inside) == 1 else None


def row_at(repos: list[dict], here: Path | None = None) -> dict | None:
    """The `repos` row of the repository the folder `here` (default: the current folder) belongs to (repo_at)."""
    found = repo_at(repos, here)
    return next(r for r in repos if r["repo"] == found[0]) if found else None


def place(repos: list[dict], here: Path | None = None) -> dict | str:
    """The `repos` row of the repository the folder `here` (default: the current folder) belongs to (repo_at), else
    why it belongs to none, said for a note or an error: "/tmp/x is not in an ingested repository"."""
    row = row_at(repos, here)
    if row:
        return row
    try:
        folder = (here or Path.cwd()).resolve()
    except OSError:
        return "the current folder was deleted, so it is not in an ingested repository"
    roots = [(r["repo"], Path(r["root"])) for r in repos if r["root"]]
    holding = [n for n, r in roots if folder == r or r in folder.parents]
    if holding:  # one folder ingested under two names (repo_at then asks)
        return f"{folder} was ingested under {len(holding)} names ({', '.join(sorted(holding))})"
    inside = sorted(n for n, r in roots if folder in r.parents)
    if inside:
        shown = ", ".join(inside[:_SUGGESTIONS]) + (f" and {len(inside) - _SUGGESTIONS} more"
                                                   if len(inside) > _SUGGESTIONS else "")
        return f"{folder} is not in an ingested repository (it holds {len(inside)}: {shown})"
    return f"{folder} is not in an ingested repository (`kg ingest {shlex.quote(str(folder))}` adds it)"


def repo_here(store: Store, here: Path | None = None) -> str | None:
    """The name of the ingested repository the folder `here` (default: the current folder) belongs to, if one."""
    found = repo_at(store.read("repos"), here)
    return found[0] if found else None


def _at_line(store: Store, path: str, line: int, repo: str | None, text: str, here: object) -> Target:
    modules = _modules_at(store, path, repo)
    if not modules:  # an editor's or a traceback's path: absolute, or relative to the current folder
        for name, stored in _under_a_root(store, path, repo):
            path, modules = stored, _modules_at(store, stored, name)
            if modules:
                break
    if not modules:
        repos = store.read("repos")
        if repo and repo not in {r["repo"] for r in repos}:
            raise unknown_repo(repo, [r["repo"] for r in repos])
        where = f" of {shorten(repo)}" if repo else ""
        raise InputError(f"no file {shorten(path)} in the graph{where}: check the path (relative to the ingested "
                         f"root or to the current folder, or absolute){_unfinished_tail(repos, repo)}")
    if repo is None:
        modules = _prefer_here(store, text, modules, here)
    if line < 1:
        raise InputError(f"line {line} of {shorten(path)}: lines count from 1")
    held = store.read("symbols_at_lines", repo=modules[0].repo,
                      rows=[{"repo": m.repo, "path": path, "line": line} for m in modules])
    if len(modules) > 1:  # the file is in several repositories: each one's symbol at that line
        raise AmbiguousName(text, [Target(r["repo"], r["qname"], r["kind"], path, r["start_line"], r["end_line"])
                                   for r in held], place=True)
    module, row = modules[0], held[0]
    if row["kind"] == "module" and row["end_line"] and line > row["end_line"]:
        raise InputError(f"{shorten(path)} has {row['end_line']:,} lines in the graph, so line {line:,} is past its "
                         "end: check the line (or re-ingest the file if it grew)")
    return Target(module.repo, row["qname"], row["kind"], path, row["start_line"], row["end_line"], module.elsewhere,
                  outside=module.outside)


def _modules_at(store: Store, path: str, repo: str | None) -> list[Target]:
    return [_target(r) for r in store.read("find_symbol", symbol=path, repo=repo, limit=50)
            if r["kind"] == "module" and r["path"] == path]


def _under_a_root(store: Store, path: str, repo: str | None) -> list[tuple[str, str]]:
    """(repository, path relative to its ingested root) for each repository whose root holds `path` taken as
    absolute or relative to the current folder; the innermost root first."""
    try:
        full = Path(os.path.abspath(path)).resolve()
    except (OSError, ValueError):
        return []
    found = []
    for row in store.read("repos"):
        root = Path(row["root"]) if row["root"] else None
        if root is not None and (repo is None or row["repo"] == repo) and root in full.parents:
            found.append((len(root.parts), row["repo"], full.relative_to(root).as_posix()))
    return [(name, stored) for _, name, stored in sorted(found, reverse=True)]


def _target(row: dict) -> Target:
    return Target(row["repo"], row["qname"], row["kind"], row["path"], row["line"] or 1, row.get("end_line"))
