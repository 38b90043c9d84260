"""A body edit that leaves what a module exports alone re-resolves that file only, and the graph still equals a clean
ingest (real files, the real test Neo4j, compared with tests.graph_snapshot)."""

from __future__ import annotations

from pathlib import Path

from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter

from kg.store import Store
from tests.graph_snapshot import snapshot

MODELS = ("class Widget:\n    def spin(self):\n        return 1\n\n\n"
          "class Gadget:\n    def spin(self):\n        return 2\n")
# `flag` is annotated with a scalar: its result is a bool whatever `val` holds; `make` is not, so what `w` holds is
# what callers of `make()` get; `label` is annotated `-> str` although it returns a Widget, which kg (like a type
# checker) believes.
FLAGS = ("import os\n\nfrom .models import Gadget, Widget\n\n\n"
         "def flag() -> bool:\n    val = os.environ.get('DEBUG')\n    return bool(val)\n\n\n"
         "def make():\n    w = Widget()\n    return w\n\n\n"
         "def label() -> str:\n    w = Widget()\n    return w\n")
USE = ("from .flags import flag, label, make\n\n\n"
       "def run():\n    make().spin()\n    label().spin()\n    return flag()\n")


def targets(store: Store, repo: str, source: str) -> set[str]:
    rows = store.read_text("MATCH (a {repo: $repo, qname: $source})-[:CALLS]->(b) RETURN b.qname AS q",
                           repo=repo, source=source)
    return {r["q"] for r in rows if r["q"]}


def test_a_body_edit_that_exports_nothing_new_reresolves_no_other_file(store: Store, tmp_path: Path) -> None:
    work = tmp_path / "app"
    (work / "pkg").mkdir(parents=True)
    for name, text in {"__init__.py": "", "models.py": MODELS, "flags.py": FLAGS, "use.py": USE}.items():
        (work / "pkg" / name).write_text(text)
    kept = Ingestor(store, work, repo="inc", cache_dir=tmp_path / "cache")
    kept.run()
    assert targets(store, "inc", "pkg.use.run") >= {"pkg.models.Widget.spin", "pkg.flags.flag"}

    flags = work / "pkg" / "flags.py"
    steps = [
        # a local the `-> bool` return reads: flask's get_debug_flag edit that re-resolved 67 of 82 files
        ("the scalar function's local", "os.environ.get('DEBUG')", "os.environ.get('DEBUG', '')", 0),
        # (also named `w`, as `make`'s local is: locals are counted per function)
        ("the `-> str` function's local", "-> str:\n    w = Widget()", "-> str:\n    w = Gadget()", 0),
        ("the unannotated function's local", "def make():\n    w = Widget()", "def make():\n    w = Gadget()", 1),
    ]
    for name, old, new, reresolved in steps:
        text = flags.read_text()
        assert old in text, name
        flags.write_text(text.replace(old, new, 1))
        report = kept.run(touched=[flags])
        assert (report.written, report.reresolved) == (1, reresolved), name
        GraphWriter(store, "clean").forget_repo()
        Ingestor(store, work, repo="clean").run()
        assert snapshot(store, "inc") == snapshot(store, "clean"), f"after editing {name}"
    assert "pkg.models.Gadget.spin" in targets(store, "inc", "pkg.use.run")
