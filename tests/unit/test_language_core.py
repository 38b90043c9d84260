"""The rules every language front end shares (kg.ingest.languages.core): the name_only rule, the edge set, the
per-project table cache, the tallies kept file by file; and that JavaScript and Go draw name_only edges by that one
rule."""

from __future__ import annotations

import pytest
from kg.ingest.languages.core import (
    NAME_ONLY_CEILING,
    NAME_ONLY_MAX,
    EdgeSet,
    Tally,
    Target,
    name_only_confidence,
    per_project,
    tally,
)
from kg.ingest.languages.go import LANGUAGE as GO
from kg.ingest.languages.javascript import JAVASCRIPT


@pytest.mark.parametrize(
    ("candidates", "confidence"), [(0, None), (1, 0.5), (2, 0.5), (3, 1 / 3), (8, 0.125), (9, None), (40, None)]
)
def test_name_only_confidence_is_one_over_n_capped_and_none_beyond_the_maximum(
    candidates: int, confidence: float | None
) -> None:
    assert name_only_confidence(candidates) == confidence


def test_the_edge_set_keeps_the_first_edge_per_key_and_rounds_confidences() -> None:
    edges = EdgeSet()
    edges.emit("CALLS", "m.f", Target("m.g", "symbol"), 3, "local")
    edges.emit("CALLS", "m.f", Target("m.g", "symbol"), 3, "local", 0.2)  # same key: ignored
    edges.emit("CALLS", "m.f", Target("m.g", "symbol"), 3, "inferred", 0.9)  # other resolution: kept
    edges.name_only("m.f", 4, ["a.C.save", "b.D.save", "c.E.save"], discount=0.25)
    edges.name_only("m.f", 5, [f"x{i}.save" for i in range(NAME_ONLY_MAX + 1)])  # too many: nothing
    got = [(e.target, e.line, e.resolution, e.confidence) for e in edges.edges()]
    assert got == [
        ("m.g", 3, "local", 1.0),
        ("m.g", 3, "inferred", 0.9),
        ("a.C.save", 4, "name_only", 0.083),
        ("b.D.save", 4, "name_only", 0.083),
        ("c.E.save", 4, "name_only", 0.083),
    ]
    assert len(edges) == 5


def test_per_project_builds_once_per_mapping_and_hands_over_the_previous_table() -> None:
    built: list[tuple[int, object]] = []

    def build(project: dict, previous: object) -> object:
        built.append((len(project), previous))
        return object()

    table = per_project(build, reuse=True)
    first = {"a": None}
    one = table(first)  # type: ignore[arg-type]
    assert table(first) is one  # type: ignore[arg-type]
    second = {"a": None, "b": None}
    two = table(second)  # type: ignore[arg-type]
    assert two is not one and built == [(1, None), (2, one)]
    second["c"] = None  # mutated in place (the pipeline never does): the size guard still notices
    assert table(second) is not two  # type: ignore[arg-type]
    assert per_project(lambda project: len(project))({"x": None, "y": None}) == 2  # type: ignore[arg-type]


def _edges(lang, sources: dict[str, bytes]) -> list:
    names = lang.module_names(list(sources))
    files = [lang.parse(path, names[path], source) for path, source in sources.items()]
    project = {f.module: f for f in files}
    return [edge for f in files for edge in lang.resolve(f, project)]


@pytest.mark.parametrize("classes", [3, NAME_ONLY_MAX + 1])
def test_javascript_and_go_draw_name_only_edges_by_the_shared_rule(classes: int) -> None:
    js = {f"c{i}.js": f"export class C{i} {{ save() {{}} }}\n".encode() for i in range(classes)}
    js["use.js"] = b"export function run(x) { x.save() }\n"
    go = {f"c{i}.go": f"package main\ntype C{i} struct{{}}\nfunc (C{i}) Save() {{}}\n".encode() for i in range(classes)}
    go["use.go"] = b"package main\nfunc run(x interface{}) { x.Save() }\n"
    expected = name_only_confidence(classes)
    for lang, sources in ((JAVASCRIPT, js), (GO, go)):
        guesses = [e for e in _edges(lang, sources) if e.resolution == "name_only"]
        assert len(guesses) == (classes if expected else 0), lang.name
        assert all(e.confidence == round(expected or 0, 3) <= NAME_ONLY_CEILING for e in guesses), lang.name


def test_a_tally_kept_file_by_file_equals_one_built_from_every_file() -> None:
    """A file's rows counted out and its new rows counted in give the table a rebuild would: a row two files have
    stays while one of them still has it, and a key whose rows are all gone disappears."""
    files = {"a": [("save", "A", "func"), ("save", "A", "func"), ("size", "A", "prop")],
             "b": [("save", "B", "func"), ("size", "A", "prop")]}
    kept = Tally(files.values())
    assert dict(kept.get("save")) == {("A", "func"): 2, ("B", "func"): 1}
    assert dict(kept.get("size")) == {("A", "prop"): 2}
    version = kept.version
    kept.remove(files["b"])
    files["b"] = [("load", "B", "func")]
    kept.add(files["b"])
    assert kept.version > version  # what was derived from it is stale
    assert kept == Tally(files.values())
    assert dict(kept.get("size")) == {("A", "prop"): 1}
    kept.remove(files.pop("a"))
    assert kept == Tally(files.values())
    assert dict(kept.get("save")) == {} and dict(kept.get("size")) == {}


def test_a_project_without_tallies_of_its_own_gets_one_built_from_every_module() -> None:
    project = {"m": "x.y", "n": "x"}  # tally only hands each value to `of`
    built = tally(project, "names", lambda value: [(part, value) for part in value.split(".")])  # type: ignore[arg-type]
    assert dict(built.get("x")) == {("x.y",): 1, ("x",): 1}
    assert dict(built.get("y")) == {("x.y",): 1}
