"""Builds the Neo4j launcher (kg/server/launcher) with Maven once, into a cache outside the work tree.

The cache folder is named after a digest of the launcher's sources, so changing the pom or the class builds a fresh
copy while every clone of the project on the machine shares one build (and Maven's own ~/.m2 keeps the jars).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from kg.errors import ServerError, ToolMissing

LAUNCHER_SOURCES = Path(__file__).parent / "launcher"
MAIN_CLASS = "kg.launcher.Launcher"
PRUNE_AFTER_DAYS = 14


def cache_root() -> Path:
    if os.environ.get("KG_CACHE_DIR"):
        return Path(os.environ["KG_CACHE_DIR"]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kg"


def java_executable() -> str:
    """The `java` to run Neo4j with: $JAVA_HOME/bin/java, else the one on PATH; it must be 17 or newer."""
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        raise ToolMissing("java not found: install a JDK 17+ (apt-get install openjdk-17-jdk-headless) "
                          "or set JAVA_HOME")
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    match = re.search(r'version "(\d+)', out)
    if not match or int(match.group(1)) < 17:
        raise ToolMissing(f"{java} is not Java 17 or newer: install a JDK 17+ or point JAVA_HOME at one")
    return java


def launcher_dir() -> Path:
    return cache_root() / "launcher" / _sources_digest()


def is_built() -> bool:
    return (launcher_dir() / "ready").exists()


def ensure_launcher(on_build: Callable[[str], None] | None = None) -> str:
    """The launcher's classpath, building it first when this version has never been built here."""
    target = launcher_dir()
    if not (target / "ready").exists():
        _build(target, on_build)
    else:
        (target / "ready").touch()  # "used now": another checkout's build only prunes builds nobody used lately
    return f"{target / 'kg-neo4j-launcher.jar'}{os.pathsep}{target / 'lib' / '*'}"


def _build(target: Path, on_build: Callable[[str], None] | None) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ToolMissing("mvn not found: install Maven (apt-get install maven) to build the local Neo4j launcher")
    java_executable()
    if on_build:
        on_build("building the Neo4j launcher with Maven (first time only, about a minute)")
    work = target.parent / f"{target.name}.build-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(LAUNCHER_SOURCES, work, ignore=shutil.ignore_patterns("target"))
    log = target.parent / f"{target.name}.build.log"
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run([mvn, "-B", "-q", "package", "-DskipTests", "-f", str(work / "pom.xml")],
                              stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise ServerError(f"building the Neo4j launcher failed (Maven exit {done.returncode}): see {log}")
    staged = work / "target"
    (staged / "ready").write_text("ok\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    # A rename is atomic: a concurrent `kg server start` sees either no build or a complete one.
    try:
        staged.rename(target)
    except OSError:
        if not (target / "ready").exists():
            raise
    shutil.rmtree(work, ignore_errors=True)
    _prune(target)


def _prune(keep: Path) -> None:
    """Remove builds of other launcher versions (~140 MB each) that no start used for PRUNE_AFTER_DAYS: another
    checkout on the machine (an older branch, a second clone) may still start the version it was built for."""
    cutoff = time.time() - PRUNE_AFTER_DAYS * 86400
    for old in keep.parent.iterdir():
        if old.name == keep.name or old.name.startswith(f"{keep.name}."):
            continue
        marker = old / "ready"
        try:  # a folder without `ready` is a build under way (or one that died): judged by its own age
            used = (marker if marker.exists() else old).stat().st_mtime
        except OSError:
            continue
        if used < cutoff:
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(LAUNCHER_SOURCES.rglob("*")):
        if path.is_file() and "target" not in path.relative_to(LAUNCHER_SOURCES).parts:
            digest.update(path.relative_to(LAUNCHER_SOURCES).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
