"""What git knows about a reviewed repository: the revision it is at and how often each file changed (churn).

Every git call goes through kg.git, the one hardened runner. A folder outside git, or git missing, is not an error:
the review leaves churn out and says so once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from kg.git import git

CHURN_COMMITS = 1000  # churn counts the commits among the last this many that touched each file


@dataclass(frozen=True)
class History:
    revision: str | None  # short commit id, `+` when the working tree has changes; None without git
    churn: dict[str, int] | None  # path relative to the ingested root → commits; None without history
    note: str | None  # why churn is missing, said once
    commits: int = 0  # how many commits churn was counted over


def history(root: Path) -> History:
    if not root.is_dir():
        return History(None, None, f"churn left out: {root} is not on this machine")
    try:
        inside = git(root, "rev-parse", "--is-inside-work-tree").strip() == "true"
    except InputError:
        inside = False
    if not inside:
        return History(None, None, f"churn left out: {root} has no git history")
    try:
        head = git(root, "rev-parse", "--short", "HEAD").strip()
    except InputError:
        return History(None, None, f"churn left out: {root} has no commits yet")
    dirty = bool(git(root, "status", "--porcelain", "--untracked-files=no", paths=(".",)).strip())
    log = git(root, "log", f"--max-count={CHURN_COMMITS}", "--format=%x00", "--name-only", "--no-renames",
              "--relative", paths=(".",))
    churn = Counter(line for line in log.splitlines() if line and line != "\0")
    return History(head + ("+" if dirty else ""), dict(churn), None, log.count("\0"))


def commit_of(root: Path, revision: str) -> str:
    """The full commit id `revision` names in the repository at `root` (a one-line InputError if none)."""
    return git(root, "rev-parse", "--verify", revisions=(f"{revision}^{{commit}}",)).strip()
