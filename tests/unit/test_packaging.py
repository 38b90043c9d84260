"""kg installs under one name: ingest/, agent/ and queries/ become kg.ingest, kg.agent and kg.queries."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {"kg": "kg", "ingest": "kg.ingest", "agent": "kg.agent", "queries": "kg.queries"}


def test_every_package_folder_is_installed_under_kg() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    on_disk = set()
    for folder, name in LAYERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            on_disk.add(".".join((name, *parts)))
    assert set(setuptools["packages"]) == on_disk
    assert {k: v for k, v in setuptools["package-dir"].items()} == {v: k for k, v in LAYERS.items() if k != "kg"}
    assert not any(p.split(".")[0] in {"ingest", "agent", "queries"} for p in setuptools["packages"])
