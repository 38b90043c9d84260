"""kg installs under one name: ingest/, agent/ and queries/ become kg.ingest, kg.agent and kg.queries."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {"kg": "kg", "ingest": "kg.ingest", "agent": "kg.agent", "queries": "kg.queries"}


def tracked_folders() -> set[str]:
    """The installed name of every folder of the layers that holds a file git tracks (code or data)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--", *LAYERS], check=True, capture_output=True,
                           text=True).stdout.split()
    names = set()
    for file in files:
        folder, *parts = Path(file).parent.parts
        names.add(".".join((LAYERS[folder], *parts)))
    return names


def test_every_folder_that_holds_a_file_is_a_listed_package() -> None:
    """Setuptools installs code and data only from listed packages, and prints ~40 lines of warnings for each data
    folder left out (`make setup` printed 466 lines): code folders and data-only folders are both listed."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    with_init = set()
    for folder, name in LAYERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            with_init.add(".".join((name, *parts)))
    packages = set(setuptools["packages"])
    assert with_init <= packages
    assert packages == tracked_folders()
    assert "kg.queries.review" in packages and "kg.server.launcher.src.main.java.kg.launcher" in packages
    assert {k: v for k, v in setuptools["package-dir"].items()} == {v: k for k, v in LAYERS.items() if k != "kg"}
    assert not any(p.split(".")[0] in {"ingest", "agent", "queries"} for p in setuptools["packages"])


def test_the_wheel_ships_every_code_and_data_file_without_warnings(tmp_path: Path) -> None:
    """A real build of the wheel (`pip wheel`, isolated as on a fresh machine): every tracked code and data file is
    in it under kg/, and setuptools has nothing to warn about."""
    import sys
    import zipfile

    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w",
                            str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    assert "would be ignored" not in built.stderr and "Warning" not in built.stderr, built.stderr[:2000]
    (wheel,) = tmp_path.glob("kg-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--", *LAYERS], check=True, capture_output=True,
                           text=True).stdout.split()
    wanted = {f if f.startswith("kg/") else f"kg/{f}" for f in files
              if not f.endswith((".md", ".sh"))}  # the language guide and the LLM installer stay in the tree
    assert len(wanted) > 250 and sorted(wanted - shipped) == []
