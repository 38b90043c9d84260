"""What a memory item is about: names → graph nodes, like `kg callers` resolves them, plus documents.

A target is remembered on the item as a ref, `path` for a module or document and `path#qname` for a symbol, so the
item can still say what it was about after ingest deleted the node. Who writes: a person's name from git config, or
the agent run's id.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from kg.git import git
from kg.navigate.targets import resolve
from kg.store import Store


@dataclass(frozen=True)
class MemoryTarget:
    repo: str
    kind: str  # module | document | class | function | method | variable
    path: str
    qname: str | None  # the dotted name of a module or symbol; None for a document
    hash: str | None  # the content hash the graph holds now

    @property
    def is_symbol(self) -> bool:
        return self.kind not in ("module", "document")

    @property
    def ref(self) -> str:
        return f"{self.path}#{self.qname}" if self.is_symbol else self.path

    @property
    def key(self) -> str:
        """The node's key in the graph (Module/Document: repo:path, Symbol: repo:qname)."""
        return f"{self.repo}:{self.qname if self.is_symbol else self.path}"

    @property
    def label(self) -> str:
        return "Symbol" if self.is_symbol else "Document" if self.kind == "document" else "Module"

    @property
    def name(self) -> str:
        return self.qname if self.is_symbol else self.path

    def row(self) -> dict:
        return {"key": self.key, "label": self.label, "ref": self.ref}


def ref_path(ref: str) -> str:
    return ref.split("#", 1)[0]


def ref_row(repo: str, ref: str, kind: str | None = None) -> dict:
    """The key and label of a ref (for re-attaching a target that is back after ingest)."""
    path, _, qname = ref.partition("#")
    if qname:
        return {"key": f"{repo}:{qname}", "label": "Symbol", "ref": ref}
    return {"key": f"{repo}:{path}", "label": "Document" if kind == "document" else "Module", "ref": ref}


def resolve_target(store: Store, name: str, repo: str | None = None) -> MemoryTarget:
    """The one module, symbol or document `name` means: a dotted name or unique suffix, a path, or path:line."""
    name = (name or "").strip()
    if not name:
        raise InputError("empty --about: name a module, symbol or document (shop/cart.py, Cart.checkout, README.md)")
    documents = store.read("memory/document_find", path=name, repo=repo)
    if len(documents) == 1:
        d = documents[0]
        return MemoryTarget(d["repo"], "document", d["path"], None, d["hash"])
    target = resolve(store, name, repo)  # AmbiguousName lists the candidates
    found = MemoryTarget(target.repo, "module" if target.is_module else target.kind, target.path,
                         target.qname, None)
    rows = store.read("memory/target_hashes", rows=[found.row()])
    return MemoryTarget(found.repo, found.kind, found.path, found.qname, rows[0]["hash"] if rows else None)


def resolve_targets(store: Store, names: list[str], repo: str | None = None) -> list[MemoryTarget]:
    """Every name resolved; all in one repository (an item belongs to one), each once."""
    targets: dict[str, MemoryTarget] = {}
    for name in names:
        t = resolve_target(store, name, repo)
        targets.setdefault(t.key, t)
    repos = sorted({t.repo for t in targets.values()})
    if len(repos) > 1:
        raise InputError(f"the targets belong to different repositories ({', '.join(repos)}): record one item per "
                         "repository, or pass --repo")
    return sorted(targets.values(), key=lambda t: t.key)


def author_for(project: Path) -> str:
    """The person at the keyboard: git config user.name, else the login name."""
    try:
        name = git(project, "config", "user.name").strip()
    except InputError:
        name = ""
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
