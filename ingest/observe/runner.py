"""Running a test suite under kg's tracer: which interpreter, which command, which environment.

The tracer is a plain module in `tracer/`; the suite's own Python imports it through PYTHONPATH and loads it with
`-p kg_observe_tracer` (or through PYTEST_ADDOPTS for a command the user gives, such as `tox -e py311 --`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError

TRACER_DIR = Path(__file__).parent / "tracer"
PLUGIN = "kg_observe_tracer"

# pytest's exit codes (pytest.ExitCode), spelled out for messages
INTERRUPTED, INTERNAL_ERROR, USAGE_ERROR, NO_TESTS = 2, 3, 4, 5


@dataclass
class Command:
    argv: list[str]
    origin: str  # said to the user: which interpreter and why

    def text(self) -> str:
        return " ".join(self.argv)


@dataclass
class Finished:
    exit_code: int
    seconds: float
    tail: list[str]  # the last lines it printed, for the one-line error when it fails before tracing


def project_python(root: Path) -> tuple[str, str]:
    """The interpreter of the project's own virtualenv (`.venv`, then `venv`), else kg's own."""
    for folder in (".venv", "venv"):
        for candidate in (root / folder / "bin" / "python", root / folder / "Scripts" / "python.exe"):
            if candidate.exists():
                return str(candidate), f"the project's {folder}"
    return sys.executable, "kg's own Python: the project has no .venv or venv"


def default_command(root: Path, test_paths: list[str] | None = None) -> Command:
    python, origin = project_python(root)
    return Command([python, "-m", "pytest", "-p", PLUGIN, *(test_paths or [])], f"pytest with {python} ({origin})")


def given_command(argv: list[str]) -> Command:
    return Command(list(argv), "the command given after --")


def run(command: Command, root: Path, trace_dir: Path, files_listing: Path, select: Path | None = None,
        echo: Callable[[str], None] | None = None) -> Finished:
    """Run `command` in `root` with the tracer switched on; its output goes line by line to `echo`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TRACER_DIR), env.get("PYTHONPATH", "")) if p)
    env["KG_OBSERVE_TRACE"] = str(trace_dir)
    env["KG_OBSERVE_FILES"] = str(files_listing)
    env["KG_OBSERVE_ROOT"] = str(root)
    env.pop("KG_OBSERVE_SELECT", None)
    if select is not None:
        env["KG_OBSERVE_SELECT"] = str(select)
    if f"-p {PLUGIN}" not in " ".join(command.argv):
        env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} -p {PLUGIN}".strip()
    tail: deque[str] = deque(maxlen=20)
    began = time.perf_counter()
    try:
        process = subprocess.Popen(command.argv, cwd=root, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace")
    except OSError as e:
        raise InputError(f"cannot start {command.argv[0]!r}: {e.strerror or e}") from e
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            tail.append(line.rstrip("\n"))
            if echo is not None:
                echo(line.rstrip("\n"))
    return Finished(process.returncode, round(time.perf_counter() - began, 3), list(tail))
