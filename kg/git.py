"""The one way kg runs git: read-only commands with every repository-controlled program switched off.

A repository's own `.git/config` can name programs git runs as a side effect of a read (`core.fsmonitor`, an
external diff, a textconv driver, a pager, hooks). kg reads repositories it did not write (and an agent's
workspace), so each call overrides those settings on the command line, where they win over any config file.
Every revision a caller passes goes after `--end-of-options`, so it can never be read as an option.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from kg.errors import InputError

# `-c` settings that beat the repository's config: no program named by the repository runs.
_HARDENED = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.quotePath=false",
    "-c", "diff.external=",
    "-c", "protocol.allow=never",
)


def git(root: Path, *args: str, revisions: tuple[str, ...] = (), paths: tuple[str, ...] = ()) -> str:
    """stdout of `git <args> --end-of-options <revisions> -- <paths>` in `root`; a one-line InputError on failure."""
    command = ["git", "--no-pager", *_HARDENED, "-C", str(root), *args]
    if revisions:
        command += ["--end-of-options", *revisions]
    if paths:
        command += ["--", *paths]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
                              env=_environment())
    except FileNotFoundError as e:
        raise InputError("git is not installed: install it to use this command") from e
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [f"git {args[0] if args else ''} failed"])[0]
        raise InputError(f"git {args[0] if args else ''} in {root} failed: {first}")
    return done.stdout


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    # No pager, no prompt for credentials, no editor, no system-wide config.
    env.update({"GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_OPTIONAL_LOCKS": "0"})
    return env
