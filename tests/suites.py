"""Real test suites to observe: pinned PyPI sdists with their test dependencies in a cached virtualenv.

`checkout(name, dest)` copies the sdist tree to `dest` (a git repository with one commit, so `kg changes` has a
diff to read) with `.venv` pointing at the suite's virtualenv, which is what `kg observe`'s default command looks
for. The project's own code is not installed in the venv: `env(root)` puts `src/` first on PYTHONPATH, so what runs
is the copy's code. Virtualenvs live in `<repo>/.kg/venvs/` (git-ignored) and are built once per suite and
Python version; `SuiteUnavailable` says why one could not be built (no PyPI), so tests can skip with that reason.

Network: the requests suite is run in its own network namespace when `unshare` is allowed (only loopback exists
there), and its tests that reach for outside addresses (a TARPIT address for connect timeouts, DNS lookups of real
domains) are deselected, as are the timeout tests that only wait.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.sdists import sdist

REPO = Path(__file__).resolve().parents[1]
VENVS = REPO / ".kg" / "venvs"


class SuiteUnavailable(RuntimeError):
    """The suite's test dependencies could not be installed."""


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    deps: tuple[str, ...]
    pytest_args: tuple[str, ...] = ("tests",)
    isolate_network: bool = False


SUITES = {
    "flask": Suite("flask", "3.0.3", ("werkzeug>=3.0.0,<3.1", "jinja2>=3.1.2,<4", "itsdangerous>=2.1.2,<3",
                                      "click>=8.1.3,<8.2", "blinker>=1.6.2,<2", "pytest>=8,<9", "asgiref>=3.2",
                                      "python-dotenv>=1")),
    "requests": Suite("requests", "2.32.3", ("charset_normalizer>=2,<4", "idna>=2.5,<4", "urllib3>=1.21.1,<3",
                                            "certifi>=2017.4.17", "pytest>=8,<9", "pytest-httpbin==2.0.0",
                                            "httpbin~=0.10.0", "trustme", "PySocks>=1.5.6,!=1.5.7", "pytest-mock"),
                      # test_different_connection_pool_for_mtls_settings: the sdist's client certificate
                      # (tests/certs/mtls) expired on 2026-03-13, so the TLS server rejects it on any later day
                      ("tests", "-k", "not TestTimeout and not test_errors and not test_proxy_error and not "
                                      "test_different_connection_pool_for_mtls_settings"),
                      isolate_network=True),
    "click": Suite("click", "8.1.7", ("pytest>=8,<9",)),
}


def venv(suite: Suite) -> Path:
    """The suite's virtualenv (built on first use, about half a minute with pip's cache)."""
    key = hashlib.blake2b("\n".join(suite.deps).encode(), digest_size=4).hexdigest()
    folder = VENVS / f"{suite.name}-{sys.version_info.major}.{sys.version_info.minor}-{key}"
    if (folder / ".complete").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", *suite.deps], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise SuiteUnavailable(f"cannot install the {suite.name} suite's test dependencies: {last}")
    (folder / ".complete").write_text("ok\n")
    return folder


def checkout(name: str, dest: Path) -> Path:
    """A git-committed copy of the suite's sdist at `dest`, with `.venv` linked to the suite's virtualenv."""
    suite = SUITES[name]
    shutil.copytree(sdist(suite.name, suite.version), dest)
    (dest / ".venv").symlink_to(venv(suite))
    _register(suite, dest / ".venv")
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", name)
    return dest


def _register(suite: Suite, folder: Path) -> None:
    """Give the venv the project's metadata (the sdist's PKG-INFO) without installing its code, which comes from
    the copy's `src/`: flask's `test_get_version` asks `importlib.metadata` for flask's version and failed."""
    source = sdist(suite.name, suite.version) / "PKG-INFO"
    for site in (folder / "lib").glob("python*/site-packages"):
        target = site / f"{suite.name}-{suite.version}.dist-info" / "METADATA"
        if source.exists() and not target.exists():
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(source.read_bytes())


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def env(root: Path) -> dict[str, str]:
    """The environment to run the suite in: the copy's `src/` first on the path."""
    values = dict(os.environ)
    values["PYTHONPATH"] = str(root / "src")
    values.pop("PYTEST_ADDOPTS", None)
    return values


@cache
def can_isolate_network() -> bool:
    """Whether this process may run a command in a new network namespace (root, and unshare allowed)."""
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def command(name: str, root: Path, *extra: str) -> list[str]:
    """The suite's pytest command, run with its virtualenv's Python (wrapped in a loopback-only network namespace
    where the suite needs one and the machine allows it)."""
    suite = SUITES[name]
    argv = [str(root / ".venv" / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", *suite.pytest_args,
            *extra]
    if suite.isolate_network and can_isolate_network():
        return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *argv]
    return argv
