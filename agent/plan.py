"""Plans: the list of files a run must create, each with a short description, read from Markdown or YAML.

The plan is what makes a run finite: it is complete when every planned file exists, never because the model says
so. A file may name the files it uses (`uses:`), which is how the context knows which summaries the next file needs
before that file exists; other planned paths mentioned in a description count as uses too.

Markdown: a `# Title`, free text (the goal), and a bullet per file: ``- `path` — description (uses: a.py, b.py)``.
YAML: `{name, goal, files: [{path, description, uses: [...]}]}`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml
from kg.agent.errors import PlanError
from kg.agent.workspace import control_file

_BULLET = re.compile(r"^\s*[-*+]\s+(?:\[[ xX]\]\s+)?`?(?P<path>[\w./-]+\.\w+)`?\s*(?:[:—–-]+\s*)?(?P<desc>.*)$")
_USES = re.compile(r"\(?\buses?:\s*(?P<list>[^)]*)\)?\s*$", re.IGNORECASE)
_TICKED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class PlannedFile:
    path: str
    description: str
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    title: str
    goal: str
    files: tuple[PlannedFile, ...]
    source: str = ""  # where it was read from, for people
    text: str = field(default="", repr=False)  # the plan as written, so `resume` needs nothing but the graph

    def plan_id(self, repo: str) -> str:
        """Stable per (plan content, target repo): re-running the same plan on the same workspace finds it again."""
        digest = hashlib.sha1(f"{repo}\n{self.text}".encode()).hexdigest()[:8]
        return f"{_slug(self.title)}-{digest}"


def load_plan(path: Path) -> Plan:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise PlanError(f"cannot read plan {path}: {e.strerror or e}: give a Markdown or YAML plan file") from e
    except UnicodeDecodeError as e:
        raise PlanError(f"plan {path} is not UTF-8 text (byte {e.start}): give a Markdown or YAML plan file "
                        "saved as UTF-8") from e
    if Path(path).suffix.lower() in (".yaml", ".yml"):
        plan = parse_yaml(text, default_title=Path(path).stem)
    else:
        plan = parse_markdown(text, default_title=Path(path).stem)
    return Plan(plan.title, plan.goal, plan.files, source=str(path), text=text)


def parse_markdown(text: str, default_title: str = "plan") -> Plan:
    title, goal_lines, entries = default_title, [], []
    for line in text.splitlines():
        if line.startswith("# ") and title == default_title and not entries:
            title = line[2:].strip()
            continue
        match = _BULLET.match(line)
        if match:
            desc = match["desc"].strip()
            uses: list[str] = []
            if used := _USES.search(desc):
                uses = [u.strip(" `,") for u in re.split(r"[,\s]+", used["list"]) if u.strip(" `,")]
                uses = [u for u in uses if u.lower() != "none"]
                desc = desc[: used.start()].strip()
            entries.append((match["path"], desc, uses))
        elif not entries and not line.startswith("#") and line.strip():
            goal_lines.append(line.strip())
    return _build(title, " ".join(goal_lines), entries, text)


def parse_yaml(text: str, default_title: str = "plan") -> Plan:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise PlanError(f"the plan is not valid YAML: {str(e).splitlines()[0]}") from e
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise PlanError("a YAML plan needs a `files:` list of {path, description}")
    entries = []
    for item in data["files"]:
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or not item.get("path"):
            raise PlanError(f"plan entry {item!r} has no `path`")
        uses = item.get("uses") or []
        entries.append((str(item["path"]), str(item.get("description") or ""),
                        [uses] if isinstance(uses, str) else [str(u) for u in uses]))
    return _build(str(data.get("name") or data.get("title") or default_title), str(data.get("goal") or ""),
                  entries, text)


def check_path(path: str) -> str:
    """The normalised relative posix path, or PlanError for a path the agent could never write."""
    p = PurePosixPath(path.strip())
    if not path.strip() or p.is_absolute() or re.match(r"^[A-Za-z]:", path) or ".." in p.parts or "\\" in path:
        raise PlanError(f"planned path {path!r} must be relative to the workspace, without `..`")
    if problem := control_file(p.parts):
        raise PlanError(f"planned path {path!r} is a control file the agent may not write: {problem}")
    return p.as_posix()


def _build(title: str, goal: str, entries: list[tuple[str, str, list[str]]], text: str) -> Plan:
    if not entries:
        raise PlanError("the plan names no files: list each file as ``- `path` — description``")
    paths = [check_path(p) for p, _, _ in entries]
    duplicates = sorted({p for p in paths if paths.count(p) > 1})
    if duplicates:
        raise PlanError(f"the plan names {duplicates[0]} twice")
    known = set(paths)
    files = []
    for path, (_, desc, uses) in zip(paths, entries, strict=True):
        mentioned = [m for m in _TICKED.findall(desc) if m in known]
        used = [check_path(u) for u in uses]
        unknown = [u for u in used if u not in known]
        if unknown:
            raise PlanError(f"{path} uses {unknown[0]}, which the plan does not name")
        files.append(PlannedFile(path, desc, tuple(dict.fromkeys(u for u in [*used, *mentioned] if u != path))))
    return Plan(title.strip() or "plan", goal.strip(), tuple(files), text=text)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "plan"
