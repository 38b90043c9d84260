"""`.agent-memory/`: project memory as Markdown files people review in pull requests and edit by hand.

One file per module (`shop/cart.py` → `shop/cart.py.md`; items about nothing in particular in `_repo.md`) plus
`index.md`. A file is YAML front matter (repo, path) and one `## Decision <id>` or `## Knowledge <id>` section per
item: a fenced YAML block with the item's metadata (status, confidence, author, source, version, timestamps,
targets with the hash recorded, conflicts, supersedes), then the words:

    Decision text (one paragraph)            **Responsibility:** text
                                             **Pitfalls:**
    **Why:** rationale                       - one point per item

Export is deterministic (items by id, keys sorted, no run-dependent text), so export → import → export is
byte-identical. Import parses every file with markdown-it and PyYAML before changing anything: a file it cannot
read is one error naming the file and line, and then nothing is imported. A section without an id is a new item
(checked like any other write); an edited item is merged with the graph by the version it was exported at
(kg.memory.writes); an item whose id the graph lacks is restored as it was (a fresh clone). Deleting a section
does not delete the item: set `status: rejected` instead, so a retired decision stays reviewable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt

from kg.errors import InputError
from kg.memory import items as items_module
from kg.memory.items import STATUSES, MemoryItem
from kg.memory.targets import ref_path, ref_row, resolve_target
from kg.memory.writes import FIELDS, MemoryConflict, MemoryWriter, check_confidence, clean_text, values
from kg.store import Store

GENERATOR = "kg memory export"
INDEX = "index.md"
REPO_FILE = "_repo.md"
_ESCAPE = re.compile(r"^(?:[#>*+=|<`~\\_\[!-]|\d+[.)])")
_META_KEYS = {"status", "confidence", "author", "source", "version", "created_at", "updated_at", "about",
              "conflicts", "supersedes", "title", "pending", "plan"}


class MemoryFileError(InputError):
    """A `.agent-memory/` file kg cannot read; the message names the file and line."""


@dataclass
class FileItem:
    """One section of a memory file as written there."""

    type: str  # decision | knowledge
    id: str | None
    line: int
    file: str
    meta: dict[str, Any]
    text: str = ""
    rationale: str = ""
    responsibility: str = ""
    pitfalls: list[str] = field(default_factory=list)

    def values(self) -> dict[str, Any]:
        return {"text": self.text, "rationale": self.rationale, "status": self.meta.get("status", "proposed"),
                "confidence": float(self.meta.get("confidence", 1.0)), "title": self.meta.get("title") or "",
                "responsibility": self.responsibility, "pitfalls": list(self.pitfalls),
                "about": sorted(a["ref"] for a in self.meta.get("about") or [])}


@dataclass
class MemoryFile:
    path: str
    repo: str
    module: str
    items: list[FileItem]


# ── export ──────────────────────────────────────────────────────────────────────────────────────────────────────


def render(repo: str, items: list[MemoryItem]) -> dict[str, str]:
    """File name (relative to the memory folder) → text, for every module with memory, plus the index."""
    by_file: dict[str, list[MemoryItem]] = {}
    for item in items:
        refs = item.about or item.pending
        by_file.setdefault(ref_path(sorted(refs)[0]) if refs else "", []).append(item)
    files = {_file_name(path): _render_file(repo, path, sorted(group, key=lambda i: (i.type != "knowledge", i.id)))
             for path, group in by_file.items()}
    files[INDEX] = _render_index(repo, by_file)
    return dict(sorted(files.items()))


def export(store: Store, repo: str, folder: Path) -> list[str]:
    """Write the repository's memory into `folder`; files of an earlier export with no memory left are removed."""
    files = render(repo, items_module.load(store, repo))
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(folder.rglob("*.md")):
        rel = old.relative_to(folder).as_posix()
        if rel not in files and _generated_for(old, repo):
            old.unlink()
    for rel, text in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    return list(files)


def _file_name(path: str) -> str:
    return f"{path}.md" if path else REPO_FILE


def _generated_for(path: Path, repo: str) -> bool:
    try:
        head = path.read_text(encoding="utf-8").split("\n---\n", 1)[0]
        meta = yaml.safe_load(head.removeprefix("---\n")) if head.startswith("---\n") else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(meta, dict) and meta.get("generator") == GENERATOR and meta.get("repo") == repo


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=True, allow_unicode=True, default_flow_style=False, width=10_000)


def _escape(text: str) -> str:
    """A leading character Markdown would read as structure (a heading, a list, a fence) is backslash-escaped."""
    return "\\" + text if _ESCAPE.match(text) else text


def _unescape(text: str) -> str:
    return text[1:] if text.startswith("\\") and _ESCAPE.match(text[1:]) else text


def _render_file(repo: str, path: str, items: list[MemoryItem]) -> str:
    front = _dump({"generator": GENERATOR, "repo": repo, "path": path})
    parts = [f"---\n{front}---\n", f"# {path or f'{repo} (the repository as a whole)'}\n"]
    for item in items:
        meta: dict[str, Any] = {
            "status": item.status, "confidence": item.confidence, "author": item.author, "source": item.source,
            "version": item.version, "created_at": str(item.created_at), "updated_at": str(item.updated_at),
            "about": [{"ref": ref, "hash": _hash_then(item, ref)} for ref in item.about]}
        if item.type == "knowledge":
            meta["title"] = item.title
        if item.pending:
            meta["pending"] = item.pending
        if item.plan:
            meta["plan"] = item.plan
        flagged = [c for c in item.conflicts if c.flagged_by]  # each flag once, with the item that raised it
        if flagged:
            meta["conflicts"] = [{"with": c.other, "kind": c.kind, "reason": c.reason, "settled": c.settled}
                                 for c in flagged]
        if item.supersedes:
            meta["supersedes"] = item.supersedes
        heading = "Decision" if item.type == "decision" else "Knowledge"
        parts.append(f"## {heading} {item.id}\n\n```yaml\n{_dump(meta)}```\n")
        if item.type == "decision":
            parts.append(_escape(item.text) + "\n")
            if item.rationale:
                parts.append(f"**Why:** {item.rationale}\n")
        else:
            if item.responsibility:
                parts.append(f"**Responsibility:** {item.responsibility}\n")
            if item.pitfalls:
                parts.append("**Pitfalls:**\n\n" + "".join(f"- {_escape(p)}\n" for p in item.pitfalls))
    return "\n".join(parts)


def _hash_then(item: MemoryItem, ref: str) -> str | None:
    return next((t.hash_then for t in item.targets if t.ref == ref), None)


def _render_index(repo: str, by_file: dict[str, list[MemoryItem]]) -> str:
    lines = ["---", _dump({"generator": GENERATOR, "repo": repo, "index": True}).rstrip(), "---", "",
             f"# Project memory of {repo}", "",
             "Written by `kg memory export`; edit the module files and run `kg memory import` to bring the edits "
             "into the graph. Items marked unverified are proposed, not yet confirmed by a person.", "",
             "| file | responsibility | decisions | proposed |", "|---|---|---|---|"]
    for path in sorted(by_file):
        group = by_file[path]
        knowledge = next((i.responsibility for i in sorted(group, key=lambda i: i.id)
                          if i.type == "knowledge" and i.active and i.responsibility), "")
        decisions = [i for i in group if i.type == "decision" and i.active]
        proposed = sum(1 for i in decisions if i.status == "proposed")
        name = path or "(repository)"
        lines.append(f"| [{name}]({_file_name(path)}) | {knowledge.replace('|', '/')} | {len(decisions)} | "
                     f"{proposed} |")
    return "\n".join(lines) + "\n"


# ── import ──────────────────────────────────────────────────────────────────────────────────────────────────────


def parse(path: Path, rel: str) -> MemoryFile:
    """One memory file, or a MemoryFileError naming the file and line of the first thing wrong in it."""
    try:
        source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise MemoryFileError(f"{rel}: not UTF-8 text ({e.reason}): save it as UTF-8") from e
    lines = source.split("\n")
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        raise MemoryFileError(f"{rel}:1: a memory file starts with front matter (`---`, repo: …, path: …, `---`)")
    end = lines.index("---", 1)
    front = _yaml("\n".join(lines[1:end]), rel, 2)
    if not isinstance(front, dict) or not isinstance(front.get("repo"), str) or not isinstance(front.get("path"), str):
        raise MemoryFileError(f"{rel}:2: the front matter needs `repo:` and `path:` (as written by kg memory export)")
    offset = end + 1
    tokens = MarkdownIt("commonmark").parse("\n".join(lines[offset:]))
    items: list[FileItem] = []
    current: FileItem | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        line = (token.map[0] if token.map else 0) + offset + 1
        if token.type == "heading_open":
            title = tokens[i + 1].content.strip()
            if token.tag == "h1":
                i += 3
                continue
            if token.tag != "h2":
                raise MemoryFileError(f"{rel}:{line}: unexpected heading {title!r}: items are `## Decision ID` or "
                                      "`## Knowledge ID` sections")
            current = _section(title, rel, line)
            items.append(current)
            i += 3
            continue
        if current is None:
            raise MemoryFileError(f"{rel}:{line}: text before the first `## Decision` or `## Knowledge` section")
        if token.type == "fence":
            if current.meta or token.info.strip() != "yaml":
                raise MemoryFileError(f"{rel}:{line}: one ```yaml block per item, right under its heading")
            meta = _yaml(token.content, rel, line + 1)
            current.meta = _check_meta(meta, current, rel, line + 1)
            i += 1
            continue
        if not current.meta:
            raise MemoryFileError(f"{rel}:{line}: the item's ```yaml block must come right under its heading")
        if token.type == "paragraph_open":
            _paragraph(current, _unescape(tokens[i + 1].content), rel, line)
            i += 3
            continue
        if token.type == "bullet_list_open" and current.type == "knowledge":
            i = _pitfalls(tokens, i, current, rel, offset)
            continue
        raise MemoryFileError(f"{rel}:{line}: unexpected {token.type.removesuffix('_open')} in {current.type} "
                              f"{current.id or '(new)'}")
    for item in items:
        _complete(item)
    return MemoryFile(rel, front["repo"], front["path"], items)


def _yaml(text: str, rel: str, first_line: int) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = first_line + (mark.line if mark else 0)
        problem = getattr(e, "problem", None) or "invalid YAML"
        raise MemoryFileError(f"{rel}:{line}: {problem}: fix the YAML") from e


def _section(title: str, rel: str, line: int) -> FileItem:
    words = title.split()
    if not words or words[0] not in ("Decision", "Knowledge") or len(words) > 2:
        raise MemoryFileError(f"{rel}:{line}: {title!r} is not `Decision ID` or `Knowledge ID` (leave the id out "
                              "for a new item)")
    item_id = words[1] if len(words) == 2 else None
    prefix = "dec-" if words[0] == "Decision" else "kn-"
    if item_id is not None and not re.fullmatch(re.escape(prefix) + r"[0-9a-f]{12}", item_id):
        raise MemoryFileError(f"{rel}:{line}: {item_id!r} is not a {words[0].lower()} id ({prefix} and 12 hex digits)")
    return FileItem(words[0].lower(), item_id, line, rel, {})


def _check_meta(meta: Any, item: FileItem, rel: str, line: int) -> dict[str, Any]:
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise MemoryFileError(f"{rel}:{line}: the yaml block must be a mapping (status: …, about: …)")
    unknown = sorted(set(meta) - _META_KEYS)
    if unknown:
        raise MemoryFileError(f"{rel}:{line}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_META_KEYS))})")
    status = meta.setdefault("status", "proposed")
    if status not in STATUSES:
        raise MemoryFileError(f"{rel}:{line}: status {status!r} is not one of {', '.join(STATUSES)}")
    try:
        meta["confidence"] = check_confidence(meta.get("confidence", 1.0))
    except InputError as e:
        raise MemoryFileError(f"{rel}:{line}: {e}") from e
    about = meta.get("about") or []
    if not isinstance(about, list):
        raise MemoryFileError(f"{rel}:{line}: about must be a list of targets (- ref: shop/cart.py)")
    normalized = []
    for entry in about:
        if isinstance(entry, str):
            entry = {"ref": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("ref"), str) or not entry["ref"].strip():
            raise MemoryFileError(f"{rel}:{line}: each about entry needs a ref (a path, or path#qualified.name)")
        normalized.append({"ref": entry["ref"].strip(), "hash": entry.get("hash")})
    meta["about"] = normalized
    if item.id is not None:
        for key in ("version", "author", "source", "created_at"):
            if key not in meta:
                raise MemoryFileError(f"{rel}:{line}: {item.type} {item.id} lacks {key!r} (keep the exported fields, "
                                      "or drop the id for a new item)")
        if not isinstance(meta["version"], int) or meta["version"] < 1:
            raise MemoryFileError(f"{rel}:{line}: version must be a whole number ≥ 1")
    return meta


def _paragraph(item: FileItem, content: str, rel: str, line: int) -> None:
    text = " ".join(content.split())
    for label, attribute in (("**Why:**", "rationale"), ("**Responsibility:**", "responsibility")):
        if text.startswith(label):
            if (attribute == "rationale") != (item.type == "decision"):
                raise MemoryFileError(f"{rel}:{line}: {label} belongs in a "
                                      f"{'decision' if attribute == 'rationale' else 'knowledge'} section")
            setattr(item, attribute, text.removeprefix(label).strip())
            return
    if item.type == "knowledge":
        if text == "**Pitfalls:**":
            return
        raise MemoryFileError(f"{rel}:{line}: knowledge has **Responsibility:** and a **Pitfalls:** list, "
                              f"not {text[:40]!r}")
    if item.text or item.rationale:
        raise MemoryFileError(f"{rel}:{line}: a decision is one paragraph of text, then **Why:** (join the lines)")
    item.text = text


def _pitfalls(tokens: list, i: int, item: FileItem, rel: str, offset: int) -> int:
    depth = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "bullet_list_open":
            depth += 1
            if depth > 1:
                raise MemoryFileError(f"{rel}:{token.map[0] + offset + 1}: pitfalls are one flat list")
        elif token.type == "bullet_list_close":
            return i + 1
        elif token.type == "inline":
            item.pitfalls.append(_unescape(" ".join(token.content.split())))
        i += 1
    return i


def _complete(item: FileItem) -> None:
    where = f"{item.file}:{item.line}"
    if not item.meta:
        raise MemoryFileError(f"{where}: {item.type} {item.id or '(new)'} has no ```yaml block under its heading")
    if item.type == "decision" and not item.text:
        raise MemoryFileError(f"{where}: decision {item.id or '(new)'} has no text")
    if item.type == "knowledge" and not (item.responsibility or item.pitfalls):
        raise MemoryFileError(f"{where}: knowledge {item.id or '(new)'} has neither **Responsibility:** nor pitfalls")
    for value in (item.text, item.rationale, item.responsibility, *item.pitfalls):
        try:
            clean_text(value, "text", required=False)
        except InputError as e:
            raise MemoryFileError(f"{where}: {e}") from e


def read_folder(folder: Path) -> list[MemoryFile]:
    """Every memory file under `folder`, parsed; the first broken one stops everything."""
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder: export first (`kg memory export`) or give the folder")
    files = []
    seen: dict[str, str] = {}
    for path in sorted(folder.rglob("*.md")):
        rel = path.relative_to(folder).as_posix()
        if rel == INDEX:
            continue
        parsed = parse(path, rel)
        for item in parsed.items:
            if item.id is not None:
                if item.id in seen:
                    raise MemoryFileError(f"{rel}:{item.line}: {item.id} is also in {seen[item.id]}: keep one")
                seen[item.id] = f"{rel}:{item.line}"
        files.append(parsed)
    return files


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    conflicts: list[str] = field(default_factory=list)  # one line each: what could not be merged

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def import_folder(store: Store, writer: MemoryWriter, folder: Path) -> ImportReport:
    files = read_folder(folder)
    repos = {r["repo"] for r in store.read("repos")}
    for f in files:
        if f.repo not in repos:
            raise MemoryFileError(f"{f.path}:2: repository {f.repo!r} is not in the graph: ingest it first")
    owners = {r["id"]: r["repo"] for r in store.read("memory/item_repo", ids=[i.id for f in files for i in f.items
                                                                              if i.id])}
    for f in files:
        for item in f.items:
            if item.id in owners and owners[item.id] != f.repo:
                raise MemoryFileError(f"{f.path}:{item.line}: {item.id} belongs to repository {owners[item.id]!r}, "
                                      f"not {f.repo!r}: drop its id to record it here as a new item")
    report = ImportReport()
    restored: list[FileItem] = []
    existing: dict[str, MemoryItem] = {}
    for repo in sorted({f.repo for f in files}):  # one read per repository, not per file
        ids = [i.id for f in files if f.repo == repo for i in f.items if i.id]
        existing.update({i.id: i for i in items_module.load(store, repo, ids=ids)} if ids else {})
    for f in files:
        for item in f.items:
            if item.id is None:
                outcome = _create(store, writer, f, item)
                report.created.append(outcome.id)
                if outcome.conflicts:
                    report.conflicts.append(f"{item.file}:{item.line}: new {item.type} {outcome.id} flagged against "
                                            f"{', '.join(c['id'] for c in outcome.conflicts)}")
            elif item.id not in existing:
                _restore(store, f.repo, item)
                restored.append(item)
                report.restored.append(item.id)
            else:
                _merge(store, writer, existing[item.id], item, report)
    if restored:
        store.write("memory/links_restore", [{"id": i.id, "conflicts": i.meta.get("conflicts") or [],
                                              "supersedes": i.meta.get("supersedes") or []} for i in restored])
    return report


def _create(store: Store, writer: MemoryWriter, f: MemoryFile, item: FileItem) -> Any:
    names = [_name_of(a["ref"]) for a in item.meta["about"]] or ([f.module] if f.module else [])
    if item.type == "decision":
        return writer.decide(item.text, names, item.rationale, item.meta["confidence"], repo=f.repo,
                             status=item.meta["status"])
    return writer.put_knowledge(names, item.responsibility or None, item.pitfalls,
                                title=item.meta.get("title") or "", confidence=item.meta["confidence"],
                                propose=item.meta["status"] == "proposed", repo=f.repo)


def _name_of(ref: str) -> str:
    """What a person would type for a ref: the qualified name of a symbol, else the path."""
    return ref.split("#", 1)[1] if "#" in ref else ref


def _restore(store: Store, repo: str, item: FileItem) -> None:
    meta = item.meta
    props = {"id": item.id, "repo": repo, "status": meta["status"], "confidence": meta["confidence"],
             "author": str(meta["author"]), "source": str(meta["source"]), "version": meta["version"],
             "about": [a["ref"] for a in meta["about"]], "pending": list(meta.get("pending") or []),
             "plan": meta.get("plan")}
    if item.type == "decision":
        props.update(text=item.text, rationale=item.rationale)
    else:
        props.update(title=meta.get("title") or "", responsibility=item.responsibility, pitfalls=item.pitfalls)
    targets = [{**ref_row(repo, a["ref"], _kind_hint(store, repo, a["ref"])), "hash": a.get("hash")}
               for a in meta["about"]]
    store.write_read("memory/item_restore", label="Decision" if item.type == "decision" else "Knowledge",
                     props=props, created_at=str(meta["created_at"]),
                     updated_at=str(meta.get("updated_at") or meta["created_at"]), targets=targets)


def _kind_hint(store: Store, repo: str, ref: str) -> str | None:
    if "#" in ref:
        return None
    found = store.read("memory/document_find", path=ref, repo=repo)
    return "document" if found else None


def _merge(store: Store, writer: MemoryWriter, current: MemoryItem, item: FileItem, report: ImportReport) -> None:
    ours = item.values()
    if all(ours[k] == values(current)[k] for k in FIELDS):
        report.unchanged += 1
        return
    base = writer.base_at(current, item.meta["version"])
    where = f"{item.file}:{item.line}"
    if base is None:  # exported from a version the graph has no record of: every difference is a clash
        base = {k: (None if ours[k] != values(current)[k] else ours[k]) for k in FIELDS}
    changes = {k: ours[k] for k in FIELDS if ours[k] != base[k]}
    targets = None
    if "about" in changes:
        targets = [resolve_target(store, _name_of(ref), current.repo) for ref in changes["about"]]
        changes["about"] = sorted(t.ref for t in targets)
    try:
        outcome = writer.update(current, changes, base=base, targets=targets)
    except MemoryConflict as e:
        if item.type == "decision" and "text" in changes:  # the file's wording survives as a flagged proposal
            fresh = items_module.get(store, current.id)
            created = writer.decide(item.text, rationale=item.rationale, repo=current.repo,
                                    targets=[resolve_target(store, _name_of(r), current.repo) for r in fresh.about
                                             if r in {t.ref for t in fresh.targets}],
                                    also_conflicts=[{"id": current.id, "kind": "concurrent", "score": None,
                                                     "reason": f"edited in {item.file} while changed in the graph"}])
            report.created.append(created.id)
            report.conflicts.append(f"{where}: {current.id} changed meanwhile; your text is {created.id}, flagged "
                                    "for a person to settle")
        else:
            report.conflicts.append(f"{where}: {e}")
        return
    if outcome.action == "updated":
        report.updated.append(current.id)
    else:
        report.unchanged += 1
