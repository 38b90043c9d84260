"""`kg changes`: from a git diff to the symbols it touches, their blast radius and the tests worth running.

The diff is read with `git diff -U0 --relative` run in the repository's ingested root, so hunk paths are the paths
the graph stores. New-side line numbers are matched against the graph, so the graph should reflect the working
tree (`kg ingest` again, or keep `kg ingest --watch` running). A pure deletion touches the lines around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.git import git
from kg.navigate.answers import Answer, impact_of, tests_for_targets
from kg.navigate.evidence import pytest_ids
from kg.navigate.targets import Target
from kg.store import Store

_FILE = re.compile(r"^\+\+\+ (?:b/)?(?P<path>.+?)\s*$")
_OLD_FILE = re.compile(r"^--- (?:a/)?(?P<path>.+?)\s*$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")


@dataclass
class FileChange:
    path: str
    lines: set[int] = field(default_factory=set)
    deleted: bool = False


def parse_diff(text: str) -> list[FileChange]:
    """Changed new-side line numbers per file of a `git diff -U0` output."""
    files: list[FileChange] = []
    old_path: str | None = None
    current: FileChange | None = None
    for line in text.splitlines():
        if m := _OLD_FILE.match(line):
            old_path = m["path"]
        elif m := _FILE.match(line):
            deleted = m["path"] == "/dev/null"
            current = FileChange(old_path if deleted and old_path else m["path"], deleted=deleted)
            files.append(current)
        elif (m := _HUNK.match(line)) and current is not None and not current.deleted:
            start, count = int(m["start"]), int(m["count"] if m["count"] is not None else 1)
            if count:
                current.lines.update(range(start, start + count))
            else:  # lines removed after new line `start`: the code on both sides of the cut changed
                current.lines.update({max(start, 1), start + 1})
    return files


def git_diff(root: Path, since: str | None = None, staged: bool = False) -> str:
    """`git diff -U0` of the working tree (or the index with `staged`) against `since` (default HEAD)."""
    args = ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--relative"]
    args += ["--staged"] if staged else []
    revisions = (since,) if since else (() if staged else ("HEAD",))
    return git(root, *args, revisions=revisions)


def repo_for(store: Store, path: Path | None, repo: str | None) -> tuple[str, Path]:
    """The ingested repository to diff and its root folder: by name, else the one whose root holds `path`."""
    repos = {r["repo"]: Path(r["root"]) for r in store.read("repos") if r["root"]}
    if repo:
        if repo not in repos:
            raise InputError(f"no repository named {repo!r} in the graph (have: {', '.join(sorted(repos)) or 'none'})")
        return repo, (path.resolve() if path else repos[repo])
    here = (path or Path.cwd()).resolve()
    holding = [(name, root) for name, root in repos.items() if here == root or root in here.parents]
    inside = [(name, root) for name, root in repos.items() if here in root.parents]
    found = sorted(holding, key=lambda nr: len(nr[1].parts))[-1:] or inside
    if len(found) != 1:
        hint = "several are" if found else "none is"
        raise InputError(f"which ingested repository is {here}? {hint} ingested there: pass --repo")
    return found[0]


@dataclass
class ChangeReport:
    repo: str
    root: Path
    changed: list[dict[str, Any]]  # one row per touched symbol or module, with the changed lines inside it
    deleted_files: list[str]
    impact: Answer
    tests: Answer

    def pytest_args(self) -> list[str]:
        return pytest_ids(self.tests.rows)

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "root": str(self.root), "changed": self.changed,
                "deleted_files": self.deleted_files, "impact": self.impact.to_dict(), "tests": self.tests.to_dict()}


def changes(store: Store, path: Path | None = None, repo: str | None = None, since: str | None = None,
            staged: bool = False, depth: int = 5, test_depth: int = 8, limit: int | None = 200,
            diff: str | None = None, evidence: str = "combined") -> ChangeReport:
    """What a diff touches. `diff` replaces running git (for callers that already have one). `limit` None: every
    row; `evidence`: which tests count (see kg.navigate.evidence)."""
    name, root = repo_for(store, path, repo)
    files = parse_diff(diff if diff is not None else git_diff(root, since, staged))
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
    targets = [Target(name, r["qname"], r["kind"], r["path"], r["start_line"]) for r in changed]
    return ChangeReport(name, root, changed, deleted, impact_of(store, targets, depth, 0.0, limit),
                        tests_for_targets(store, targets, test_depth, limit, evidence))


def _ranges(lines: list[int]) -> str:
    """`[3, 4, 5, 9]` → `3-5,9`."""
    parts: list[str] = []
    for n in sorted(set(lines)):
        if parts and int(parts[-1].split("-")[-1]) == n - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ",".join(parts)
