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
(kg.memory.writes); an item whose id the graph lacks is restored (a fresh clone). Deleting a section
does not delete the item: set `status: rejected` instead, so a retired decision stays reviewable.

What a file says is trusted only as far as a person vouches for it: anyone (an agent's `write_file`, a pull
request) can write `.agent-memory/`. So without `confirm` (the importing person saying "I reviewed these files"),
an item new to the graph lands as the importing person's, from source `import`, `proposed` where the file says
`confirmed`, and a restored decision is compared with the decisions already recorded about its targets (a
duplicate or contradiction is flagged, as for any write); an edit that would turn an item `confirmed` is refused
with a line in the report. With `confirm`, items are restored exactly as written, so export → wipe → import →
export is byte-identical.
"""

from __future__ import annotations

import os
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
MAX_FILE_BYTES = 1_000_000  # one memory file; a module's memory is a few kilobytes
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
    """Write the repository's memory into `folder`; files of an earlier export with no memory left are removed.

    A repository can ship its memory folder, so nothing here follows a symbolic link: a link inside the folder
    (a file or a folder of it) is refused before anything is written, and every write opens each path component
    with O_NOFOLLOW, so a link that appears meanwhile is refused too."""
    files = render(repo, items_module.load(store, repo))
    if folder.is_symlink():
        raise InputError(f"{folder} is a symbolic link: kg memory export writes only into a real folder")
    for rel in files:
        _refuse_links(folder, rel)
    folder.mkdir(parents=True, exist_ok=True)
    for old in _memory_files(folder):
        rel = old.relative_to(folder).as_posix()
        if rel not in files and _generated_for(old, repo):
            old.unlink()
    for rel, text in files.items():
        _write_nofollow(folder, rel, text.encode("utf-8"))
    return list(files)


def _refuse_links(folder: Path, rel: str) -> None:
    path = folder
    for part in rel.split("/"):
        path = path / part
        if path.is_symlink():
            raise InputError(f"{path} is a symbolic link: kg memory export does not write through links "
                             "(remove it, or export into another folder)")


def _write_nofollow(folder: Path, rel: str, data: bytes) -> None:
    """Write `data` to folder/rel unless it is already there, never following a link on the way."""
    *parents, name = rel.split("/")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parents:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                raise InputError(f"{folder / part}: not a real folder ({e.strerror}): kg memory export does not "
                                 "write through links") from e
            os.close(fd)
            fd = child
        try:
            with os.fdopen(os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd), "rb") as f:
                if f.read(len(data) + 1) == data:
                    return
        except FileNotFoundError:
            pass
        except OSError as e:
            raise InputError(f"{folder / rel}: {e.strerror}: kg memory export does not write through links") from e
        out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644, dir_fd=fd)
        with os.fdopen(out, "wb") as f:
            f.write(data)
    finally:
        os.close(fd)


def _memory_files(folder: Path) -> list[Path]:
    """The `*.md` files under `folder`, symbolic links (to files or folders) left out."""
    found = []
    for root, dirs, names in os.walk(folder):  # os.walk does not descend into linked folders
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        found += [Path(root, n) for n in names if n.endswith(".md") and not os.path.islink(os.path.join(root, n))]
    return sorted(found)


def _file_name(path: str) -> str:
    return f"{path}.md" if path else REPO_FILE


def _generated_for(path: Path, repo: str) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(4096).decode("utf-8").split("\n---\n", 1)[0]
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
    if path.is_symlink() or not path.is_file():
        raise MemoryFileError(f"{rel}:1: not a regular file (a link?): memory files are plain files")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise MemoryFileError(f"{rel}:1: {size:,} bytes; a memory file holds at most {MAX_FILE_BYTES:,}: split it")
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


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases: `*name` would let a few hundred bytes expand to gigabytes."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "YAML aliases (*name) are not accepted in memory files",
                                              event.start_mark)
        return super().compose_node(parent, index)


def _yaml(text: str, rel: str, first_line: int) -> Any:
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader)
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
    _check_lists(meta, rel, line)
    if item.id is not None:
        for key in ("version", "author", "source", "created_at"):
            if key not in meta:
                raise MemoryFileError(f"{rel}:{line}: {item.type} {item.id} lacks {key!r} (keep the exported fields, "
                                      "or drop the id for a new item)")
        if not isinstance(meta["version"], int) or meta["version"] < 1:
            raise MemoryFileError(f"{rel}:{line}: version must be a whole number ≥ 1")
    return meta


def _check_lists(meta: dict[str, Any], rel: str, line: int) -> None:
    """The fields sent to Neo4j as they are: their types checked here, so a bad one stops the import before any
    write instead of failing halfway through it."""
    for key in ("pending", "supersedes"):
        if not isinstance(meta.get(key) or [], list) or not all(isinstance(v, str) for v in meta.get(key) or []):
            raise MemoryFileError(f"{rel}:{line}: {key} must be a list of "
                                  f"{'paths' if key == 'pending' else 'decision ids'}")
    if not isinstance(meta.get("plan") or "", str):
        raise MemoryFileError(f"{rel}:{line}: plan must be text (the plan's path)")
    conflicts = meta.get("conflicts") or []
    if not isinstance(conflicts, list) or not all(
            isinstance(c, dict) and isinstance(c.get("with"), str) and isinstance(c.get("kind"), str)
            and isinstance(c.get("reason", ""), str | None) and isinstance(c.get("settled", False), bool)
            for c in conflicts):
        raise MemoryFileError(f"{rel}:{line}: conflicts must be a list of {{with: ID, kind: …, reason: …, "
                              "settled: true|false}}")


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
    for path in _memory_files(folder):
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


def import_folder(store: Store, writer: MemoryWriter, folder: Path, confirm: bool = False) -> ImportReport:
    """Bring `folder`'s memory files into the graph; `confirm`: a person reviewed them, so their statuses,
    authors and dates stand (see the module's docstring for what happens otherwise)."""
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
            if not confirm and item.meta["status"] == "confirmed" and (item.id is None or item.id not in existing):
                item.meta["status"] = "proposed"  # only a person confirms
            if item.id is None:
                outcome = _create(store, writer, f, item)
                report.created.append(outcome.id)
                if outcome.conflicts:
                    report.conflicts.append(f"{item.file}:{item.line}: new {item.type} {outcome.id} flagged against "
                                            f"{', '.join(c['id'] for c in outcome.conflicts)}")
            elif item.id not in existing:
                if not confirm:
                    item.meta.update(author=writer.author, source="import")
                _restore(store, f.repo, item)
                restored.append((f.repo, item))
                report.restored.append(item.id)
            else:
                _merge(store, writer, existing[item.id], item, report, confirm)
    if restored:
        store.write("memory/links_restore", [{"id": i.id, "conflicts": i.meta.get("conflicts") or [],
                                              "supersedes": i.meta.get("supersedes") or []} for _, i in restored])
    if restored and not confirm:
        _check_restored(store, writer, [(repo, i) for repo, i in restored if i.type == "decision"], report)
    return report


def _check_restored(store: Store, writer: MemoryWriter, restored: list[tuple[str, FileItem]],
                    report: ImportReport) -> None:
    """Compare each restored decision with the others recorded about its targets, as a write would; flags land
    on the restored one, which then stays `proposed`."""
    rows = []
    for repo, item in restored:
        targets = [ref_row(repo, a["ref"], _kind_hint(store, repo, a["ref"])) for a in item.meta["about"]]
        state = store.read("memory/decide_state", rows=targets, plan=item.meta.get("plan"),
                           pending=sorted(set(item.meta.get("pending") or [])))[0]
        actives = sorted((d for d in state["decisions"] if d["id"] != item.id), key=lambda d: d["id"])
        flagged = [c for c in writer._conflicts(item.text, actives)
                   if c["id"] not in {k.get("with") for k in item.meta.get("conflicts") or []}]
        if flagged:
            rows.append({"id": item.id, "supersedes": [],
                         "conflicts": [{"with": c["id"], "kind": c["kind"], "reason": c["reason"], "settled": False}
                                       for c in flagged]})
            report.conflicts.append(f"{item.file}:{item.line}: restored {item.id} flagged against "
                                    f"{', '.join(c['id'] for c in flagged)}")
    if rows:
        store.write("memory/links_restore", rows)


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


def _merge(store: Store, writer: MemoryWriter, current: MemoryItem, item: FileItem, report: ImportReport,
           confirm: bool) -> None:
    ours = item.values()
    if not confirm and ours["status"] == "confirmed" and current.status != "confirmed":
        ours["status"] = current.status  # a file cannot confirm what a person has not
        report.conflicts.append(f"{item.file}:{item.line}: {current.id} is {current.status} in the graph; the file "
                                "says confirmed: a person confirms it (kg decisions confirm, or import with --confirm)")
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
