"""The one way kg runs git: read-only commands with every repository-controlled program switched off.

kg reads repositories it did not write (and an agent's workspace), and a repository's config can name programs
git runs as a side effect of a read: `core.fsmonitor`, hooks (`post-index-change` fires when a diff refreshes the
index), an external diff or a textconv driver, a pager, clean/smudge/process filters named by `.gitattributes`
(`git diff` against the working tree runs them), and a lazy fetch of a partial clone through `ext::` or a
`remote.*.uploadpack` command. `include.path`/`includeIf` can pull any of these in from other files.

So every call
- overrides the fixed program settings, and blanks every filter/diff/merge driver and per-protocol or per-command
  pager setting the repository's config (includes followed) defines, through `GIT_CONFIG_COUNT` variables: they
  have command-line precedence, beat every config file, and carry names of any shape (no `-c a=b` parsing);
- allows no transport at all (`GIT_ALLOW_PROTOCOL`), so nothing is fetched and no transport program runs;
- takes no optional locks (no index write, so no index hooks) and reads neither system config nor `GIT_*` from the
  caller's environment;
- puts every revision after `--end-of-options`, so a revision can never be read as an option; `commit()` checks a
  revision names a commit before anything uses it.

A config whose names are too long for the overrides to fit in an environment (Linux takes 128 KiB per variable and
about 2 MB in all) cannot be neutralised, so kg runs no git there and says so in one line (an InputError), as it
does for any other failure to start git.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from kg.errors import InputError, shorten

# Settings that beat the repository's config whatever it says: no program named by the repository runs.
_FIXED = {
    "core.fsmonitor": "false",
    "core.hooksPath": "/dev/null",
    "core.pager": "cat",
    "core.quotePath": "false",
    "core.attributesFile": "/dev/null",
    "core.askPass": "",
    "core.sshCommand": "",
    "credential.helper": "",
    "diff.external": "",
    "diff.ignoreSubmodules": "all",  # a dirty-submodule check runs git inside the submodule, with its own config
    "log.showSignature": "false",  # else gpg.program would run
    "protocol.allow": "never",
}
# Per-name settings that name a program (`filter.<driver>.clean` …), found in the repository's config and blanked.
_NAMED = re.compile(r"^(?:(?P<filter>filter\..+)\.(?:clean|smudge|process|required)|diff\..+\.(?:command|textconv)"
                    r"|merge\..+\.driver|(?P<protocol>protocol\..+\.allow)|pager\..+)$", re.IGNORECASE)
MAX_REVISION = 256
GIT_TIMEOUT = 60.0  # seconds any one git command may take (kg's are reads: a diff of django's tree takes < 2 s)
# Bounds on what a repository's config may make kg put in git's environment: far above any real config (drivers
# are named like `lfs`), far below the kernel's limits.
MAX_OVERRIDE_NAME = 1000
MAX_OVERRIDE_BYTES = 256 * 1024


def git(root: Path, *args: str, revisions: tuple[str, ...] = (), paths: tuple[str, ...] = ()) -> str:
    """stdout of `git <args> --end-of-options <revisions> -- <paths>` in `root`; a one-line InputError on failure."""
    command = ["git", "--no-pager", "-C", str(root), *args]
    if revisions:
        command += ["--end-of-options", *revisions]
    if paths:
        command += ["--", *paths]
    done = _run(command, _environment(root))
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        reason = next((line for line in said if line.startswith(("fatal:", "error:"))), said[0] if said else "")
        raise InputError(f"git {args[0] if args else ''} in {root} failed: {reason[:300] or 'no reason given'}")
    return done.stdout


def commit(root: Path, revision: str) -> str:
    """The full id of the commit `revision` names in `root`, or a one-line InputError. Checked before any other use,
    so a revision that looks like an option (`--output=…`, `--ext-diff`) never reaches a command."""
    shown = shorten(revision, 60)
    if not revision or revision.startswith("-") or len(revision) > MAX_REVISION or any(
            c in revision for c in "\0\n\r"):
        raise InputError(f"revision {shown} is not a revision: give a commit such as HEAD~1, a branch, a tag or "
                         "a commit id")
    done = _run(["git", "--no-pager", "-C", str(root), "rev-parse", "--verify", "--quiet", "--end-of-options",
                 f"{revision}^{{commit}}"], _environment(root))
    if done.returncode != 0:
        raise InputError(f"revision {shown} names no commit in {root}: give a commit that exists (HEAD, a branch, "
                         "a tag or a commit id; `git log --oneline` lists them)")
    return done.stdout.strip()


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # A session of its own: no controlling terminal, so a config that includes /dev/tty fails instead of waiting for
    # the keyboard; a timeout, since an include of a FIFO (or a huge diff) would otherwise block kg for ever.
    try:
        return subprocess.run(command, capture_output=True, check=False, stdin=subprocess.DEVNULL, env=env,
                              encoding="utf-8", errors="replace", start_new_session=True, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise InputError(f"git {command[4] if len(command) > 4 else ''} did not finish in {GIT_TIMEOUT:g} s: check "
                         "the repository's git config for an include of a pipe or a device (`git config --list "
                         "--show-origin`)") from e
    except FileNotFoundError as e:
        raise InputError("git is not installed: install it to use this command") from e
    except OSError as e:  # e.g. E2BIG, ENOMEM: the command could not start, nothing ran
        raise InputError(f"git could not be started ({e.strerror or e}): check the repository's git config "
                         "(`git config --list --show-origin`)") from e


def _environment(root: Path) -> dict[str, str]:
    """The caller's environment without GIT_*, plus the overrides: the fixed ones and one per program the
    repository's config names."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    # No pager, no prompt for credentials, no system-wide config, no index write, no transport.
    env.update({"GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_OPTIONAL_LOCKS": "0", "GIT_ALLOW_PROTOCOL": "", "GIT_NO_LAZY_FETCH": "1"})
    overrides = dict(_FIXED)
    for key in _named_program_keys(root, env):
        m = _NAMED.match(key)
        if m is None:
            continue
        if m["filter"]:
            overrides[f"{m['filter']}.clean"] = overrides[f"{m['filter']}.smudge"] = ""
            overrides[f"{m['filter']}.process"] = ""
            overrides[f"{m['filter']}.required"] = "false"
        elif m["protocol"]:
            overrides[key] = "never"
        elif key.lower().startswith("pager."):
            overrides[key] = "false"
        else:
            overrides[key] = ""
    _check_fits(root, overrides)
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for i, (key, value) in enumerate(overrides.items()):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _check_fits(root: Path, overrides: dict[str, str]) -> None:
    """A one-line InputError when the overrides the repository's config calls for are too large to pass to git."""
    longest = max(overrides, key=len)
    if len(longest) > MAX_OVERRIDE_NAME:
        raise InputError(f"the git config of {root} names a driver or pager `{shorten(longest, 60)}` of "
                         f"{len(longest):,} characters (kg accepts up to {MAX_OVERRIDE_NAME:,}), so kg runs no git "
                         "command there: remove that section (`git config --list --show-origin` shows where it is)")
    size = sum(len(k.encode("utf-8", "surrogateescape")) + len(v) + 40 for k, v in overrides.items())
    if size > MAX_OVERRIDE_BYTES:
        raise InputError(f"the git config of {root} names {len(overrides):,} drivers and pagers ({size // 1024:,} KiB "
                         "of overrides), too many to switch off, so kg runs no git command there: remove the "
                         "sections it does not need (`git config --list --show-origin` shows them)")


def _named_program_keys(root: Path, env: dict[str, str]) -> list[str]:
    """Every filter/diff/merge/protocol/pager key git would read in `root` (includes followed). Reading config runs
    nothing, so this call needs no overrides."""
    done = _run(["git", "--no-pager", "-C", str(root), "config", "--includes", "--null", "--name-only",
                 "--get-regexp", r"^(filter|diff|merge|protocol|pager)\."], env)
    return [k for k in done.stdout.split("\0") if k] if done.returncode == 0 else []
