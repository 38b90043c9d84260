"""`kg changes`: from a git diff to the symbols it touches, their blast radius and the tests worth running.

The diff is read with `git diff -U0 --relative` run in the repository's ingested root, so hunk paths are the paths
the graph stores. New-side line numbers are matched against the graph, so the graph should reflect the working
tree (`kg ingest` again, or keep `kg ingest --watch` running). A pure deletion touches the lines around it.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import InputError, shorten
from kg.git import commit, git
from kg.navigate.answers import Answer, impact_of, tests_for_targets
from kg.navigate.evidence import guessed, pytest_ids
from kg.navigate.targets import REPO_HINT, Target, place, repo_at, unknown_repo
from kg.source_files import content_hash, read_source_bytes
from kg.unfinished import unfinished_note

if TYPE_CHECKING:
    from kg.store import Store  # the driver is imported only where a Store is made (kg.graph)

_HUNK = re.compile(r"^@@ -(?P<old_start>\d+)(?:,(?P<old_count>\d+))? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")
_LINE_COMMENTS = {".py": "#", ".pyi": "#", ".js": "//", ".jsx": "//", ".mjs": "//", ".cjs": "//", ".ts": "//",
                  ".tsx": "//", ".go": "//"}
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


@dataclass
class FileChange:
    path: str
    lines: set[int] = field(default_factory=set)
    deleted: bool = False


def parse_diff(text: str) -> list[FileChange]:
    """Changed new-side line numbers per file of a `git diff -U0` output.

    A hunk's body is consumed by the line counts in its `@@` header, so an added line `++ counter` or a removed
    `-- x` is content, never a file header; paths git quotes (a tab, a quote, a newline in the name) are unquoted.
    """
    files: list[FileChange] = []
    old_path: str | None = None
    current: FileChange | None = None
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            old_path, current = None, None
        elif line.startswith("--- "):
            old_path = _header_path(line[4:], "a/")
        elif line.startswith("+++ "):
            new_path = _header_path(line[4:], "b/")
            deleted = new_path is None
            path = old_path if deleted else new_path
            current = FileChange(path, deleted=deleted) if path else None
            if current is not None:
                files.append(current)
        elif m := _HUNK.match(line):
            old_left = int(m["old_count"]) if m["old_count"] is not None else 1
            new_left = int(m["count"]) if m["count"] is not None else 1
            start = int(m["start"])
            line_no, added, removed_code = start, [], False
            while (old_left > 0 or new_left > 0) and i < len(lines):
                body = lines[i]
                i += 1
                if body.startswith("\\"):  # "\ No newline at end of file"
                    continue
                if body[:1] == "+":
                    added.append((line_no, body[1:]))
                    line_no += 1
                elif body[:1] == "-":
                    removed_code = removed_code or _is_code(body[1:], current.path if current else "")
                old_left -= body[:1] != "+"
                new_left -= body[:1] != "-"
            if current is None or current.deleted:
                continue
            code = [n for n, text in added if _is_code(text, current.path)]
            current.lines.update(code)
            if removed_code and not code:  # code removed (or blanked) here: the code on both sides of the cut
                current.lines.update({max(start, 1), start + 1} if not added else {n for n, _ in added})
    return files


def _is_code(text: str, path: str) -> bool:
    """Whether a changed line can change what the code does: not blank, not a whole-line comment. Blank lines
    between definitions belong to the module, and counting them made "a function was added" read as "the module
    changed": every importer impacted, every test of them to run."""
    stripped = text.strip()
    if not stripped:
        return False
    marker = _LINE_COMMENTS.get(Path(path).suffix)
    return not (marker and stripped.startswith(marker))


def _header_path(raw: str, prefix: str) -> str | None:
    """The path of a `---`/`+++` header line: None for /dev/null; git's quoting undone, its prefix dropped."""
    raw = raw[:-1] if raw.endswith("\t") else raw  # git adds a tab after a name with a space in it
    if raw == "/dev/null":
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        raw = _unquote(raw[1:-1])
    return raw[len(prefix):] if raw.startswith(prefix) else raw


def _unquote(quoted: str) -> str:
    """A C-quoted git path (`caf\\303\\251.py`) as text: escapes and octal bytes, the bytes read as UTF-8."""
    out = bytearray()
    i = 0
    while i < len(quoted):
        c = quoted[i]
        if c == "\\" and i + 1 < len(quoted):
            nxt = quoted[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", quoted[i + 1:i + 4]):
                out.append(int(quoted[i + 1:i + 4], 8))
                i += 4
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", errors="replace")


def git_diff(root: Path, since: str | None = None, staged: bool = False) -> tuple[str, list[str]]:
    """`git diff -U0` of the working tree (or the index with `staged`) against `since` (default HEAD), the revision
    checked as a commit first, and the tracked paths left out of it because they are no longer regular files.
    Prefixes are given, so a repository's `diff.noprefix` cannot change the headers.

    git refuses the whole diff when one tracked path of the working tree is a FIFO, socket or device ("unsupported
    file type", and it names only the first): after such a failure those paths are found and the diff is run again
    without them."""
    args = ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--relative", "--src-prefix=a/",
            "--dst-prefix=b/", "--ignore-submodules=all"]
    args += ["--staged"] if staged else []
    revisions = (commit(root, since),) if since else (() if staged else (commit(root, "HEAD"),))
    try:
        return git(root, *args, revisions=revisions), []
    except InputError:
        special = [] if staged else special_files(root)  # a staged diff never reads the working tree
        if not special:
            raise
    return git(root, *args, revisions=revisions, paths=tuple(f":(exclude,literal){p}" for p in special)), special


def special_files(root: Path) -> list[str]:
    """The tracked paths under `root` that are now a FIFO, socket or device (lstat: a link is git's to diff)."""
    special = []
    for path in git(root, "ls-files", "-z").split("\0"):
        try:
            mode = os.lstat(root / path).st_mode if path else 0
        except OSError:  # deleted: git diffs that
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            special.append(path)
    return special


def repo_for(store: Store, path: Path | None, repo: str | None) -> tuple[str, Path]:
    """The ingested repository to diff and its root folder: by name, else the one whose root holds `path`."""
    rows = store.read("repos")
    repos = {r["repo"]: Path(r["root"]) for r in rows if r["root"]}
    if repo:
        if repo not in repos:
            raise unknown_repo(repo, sorted(repos))
        root = repos[repo]
        if path and root != path.resolve() and root not in path.resolve().parents:
            # git runs only in a folder the graph already knows: never in one a caller picks
            raise InputError(f"{shorten(str(path))} is not inside {repo}'s ingested root {root}: give that folder "
                             "or leave the path out")
        return repo, root
    found = repo_at(rows, path)
    if not found:
        raise InputError(f"which repository to diff? {place(rows, path)}; to diff an ingested one, {REPO_HINT}")
    return found


@dataclass
class ChangeReport:
    repo: str
    root: Path
    changed: list[dict[str, Any]]  # one row per touched symbol or module, with the changed lines inside it
    deleted_files: list[str]
    impact: Answer
    tests: Answer
    behind: list[str] = field(default_factory=list)  # changed files the graph holds an older copy of (or none)
    unfinished: str | None = None  # the repository's last ingest did not finish (kg.unfinished)
    special: list[str] = field(default_factory=list)  # tracked paths now a FIFO, socket or device: not diffed

    def warning(self) -> str | None:
        """One line when the answer may miss something: tracked paths git could not diff, and the graph cannot
        match the diff well (its last ingest did not finish, or it is behind the diff: its line numbers then point
        into the graph's older copy)."""
        parts = []
        if self.special:
            parts.append(f"{len(self.special)} tracked path(s) are not regular files now and were left out "
                         f"({_some(self.special)}): replace them with files, or `git rm` them")
        if self.unfinished:
            parts.append(self.unfinished)
        elif self.behind:
            parts.append(f"{len(self.behind)} changed file(s) differ from the graph ({_some(self.behind)}): the lines "
                         f"below are matched against the graph's older copy; run `kg ingest {self.root}` first (or "
                         "keep `kg ingest --watch` running)")
        return "; ".join(parts) or None

    def pytest_args(self, guesses: bool = True) -> list[str]:
        """The tests to pass to pytest: every one shown, or (`guesses` False) those the change surely reaches."""
        return pytest_ids([r for r in self.tests.rows if guesses or not guessed(r)])

    def guessed_args(self) -> list[str]:
        """The tests shown that reach the change only through a guessed call (kg.navigate.evidence.guessed)."""
        sure = set(self.pytest_args(guesses=False))
        return [t for t in self.pytest_args() if t not in sure]

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "root": str(self.root), "changed": self.changed,
                "deleted_files": self.deleted_files, "behind": self.behind, "not_diffed": self.special,
                "warning": self.warning(), "run": self.pytest_args(guesses=False), "guessed": self.guessed_args(),
                "impact": self.impact.to_dict(), "tests": self.tests.to_dict()}


def changes(store: Store, path: Path | None = None, repo: str | None = None, since: str | None = None,
            staged: bool = False, depth: int = 5, test_depth: int = 8, limit: int | None = 200,
            diff: str | None = None, evidence: str = "combined") -> ChangeReport:
    """What a diff touches. `diff` replaces running git (for callers that already have one). `limit` None: every
    row; `evidence`: which tests count (see kg.navigate.evidence)."""
    name, root = repo_for(store, path, repo)
    text, special = (diff, []) if diff is not None else git_diff(root, since, staged)
    files = parse_diff(text)
    changed, deleted = changed_symbols(store, name, files)
    targets = [Target(name, r["qname"], r["kind"], r["path"], r["start_line"]) for r in changed]
    return ChangeReport(name, root, changed, deleted, impact_of(store, targets, depth, 0.0, limit),
                        tests_for_targets(store, targets, test_depth, limit, evidence),
                        files_behind(store, name, root, files), unfinished_note(store, name), special)


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def files_behind(store: Store, name: str, root: Path, files: list[FileChange]) -> list[str]:
    """The changed files whose bytes now differ from what the graph last stored of them, and new files of a kind
    the repository's modules have that were never ingested: their changed lines cannot be matched to symbols."""
    rows = [{"path": f.path, "suffix": Path(f.path).suffix} for f in files if not f.deleted and f.lines]
    behind = []
    for row in store.read("files_behind", repo=name, rows=rows) if rows else []:
        data = read_source_bytes(root, row["path"])
        if data is None:
            continue
        if (row["known"] and row["hash"] != content_hash(data)) or row["parseable"]:
            behind.append(row["path"])
    return sorted(behind)


def changed_symbols(store: Store, name: str, files: list[FileChange]) -> tuple[list[dict[str, Any]], list[str]]:
    """The symbols (and modules of deleted files) a parsed diff touches in repository `name`, and the deleted
    paths."""
    rows = [{"path": f.path, "line": n} for f in files if not f.deleted for n in sorted(f.lines)]
    held = store.read("symbols_at_lines", repo=name, rows=rows) if rows else []
    touched: dict[str, dict[str, Any]] = {}
    for row in held:
        entry = touched.setdefault(row["qname"], {"qname": row["qname"], "kind": row["kind"], "path": row["path"],
                                                  "start_line": row["start_line"], "lines": []})
        entry["lines"].append(row["line"])
    deleted = [f.path for f in files if f.deleted]
    for path_gone in deleted:  # still in the graph when it was not re-ingested: its module stands for it
        for row in store.read("find_symbol", symbol=path_gone, repo=name, limit=5):
            if row["kind"] == "module" and row["path"] == path_gone:
                touched.setdefault(row["qname"], {"qname": row["qname"], "kind": "module", "path": path_gone,
                                                  "start_line": 1, "lines": []})
    changed = sorted(touched.values(), key=lambda r: (r["path"], r["start_line"]))
    for entry in changed:
        entry["lines"] = _ranges(entry["lines"])
    return changed, deleted


def _ranges(lines: list[int]) -> str:
    """`[3, 4, 5, 9]` → `3-5,9`."""
    parts: list[str] = []
    for n in sorted(set(lines)):
        if parts and int(parts[-1].split("-")[-1]) == n - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ",".join(parts)
