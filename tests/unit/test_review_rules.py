"""Architecture rules and the review's graph algorithms, checked without a database: the YAML contract (one line
naming the broken key), the pattern language, the feedback arc set, the diagram's folding and the baseline logic."""

from __future__ import annotations

import itertools
from pathlib import Path

import networkx as nx
import pytest

from kg.errors import ConfigError
from kg.review import analysis, compare, rules
from kg.review.collect import Findings
from kg.review.diagram import layered_svg, skeleton

FIXTURE_RULES = Path(__file__).resolve().parents[1] / "fixtures" / "review" / ".agent" / "architecture.yaml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "architecture.yaml"
    path.write_text(text)
    return path


def test_the_fixture_rules_load_into_query_parameters() -> None:
    arch = rules.load(FIXTURE_RULES)
    params = arch.dependency_params()
    assert [layer["name"] for layer in params["layers"]] == ["web", "core", "db"]
    assert params["forbidden"][0]["rule"] == "forbidden: app.util → app.web, app.db"
    assert params["forbidden"][0]["reason"] == "utilities know no application code"
    assert params["independent"][0]["members"] == [rules.module_regex("app.util.a"), rules.module_regex("app.util.b")]
    assert params["allowed"] == [{"source": [rules.module_regex("app.util.c")],
                                  "target": [rules.module_regex("app.db")]}]
    assert arch.limit_params()["limits"][0]["max_fan_out"] == 1
    assert arch.exclude == list(rules.DEFAULT_EXCLUDE)  # not given: tests and docs stay out


def test_no_file_means_no_rules(tmp_path: Path) -> None:
    assert not rules.load(tmp_path / "missing.yaml").has_rules
    assert not rules.load(write(tmp_path, "")).has_rules


@pytest.mark.parametrize(("text", "message"), [
    ("layers:\n  - name: web\n    modulez: [app.web]\n", r"layers\.0\.modulez: unknown key \(known: name, modules\)"),
    ("layer:\n  - name: web\n", r"layer: unknown key \(known: exclude, layers, forbidden, allowed"),
    ("forbidden:\n  - from: a\n    to: b\n    because: x\n", r"forbidden\.0\.because: unknown key \(known: from, to"),
    ("layers:\n  - name: web\n", r"layers\.0\.modules: missing"),
    ("limits:\n  - modules: [a]\n", r"limits\.0: give at least one of max_loc, max_fan_in, max_fan_out"),
    ("limits:\n  - max_loc: many\n", r"limits\.0\.max_loc: Input should be a valid integer"),
    ("independent:\n  - modules: [only.one]\n", r"independent\.0\.modules: List should have at least 2 items"),
    ("- just\n- a list\n", r"expected a mapping of keys"),
])
def test_a_broken_rule_is_one_line_naming_its_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        rules.load(write(tmp_path, text))
    assert "\n" not in str(caught.value) and str(caught.value).startswith(str(tmp_path))


def test_broken_yaml_says_where(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not valid YAML at line 2, column 1: found character '\\t'") as caught:
        rules.load(write(tmp_path, "layers:\n\t- name: web\n"))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("pattern", "yes", "no"), [
    ("app.db", ["app.db", "app.db.models", "app.db.x.y"], ["app.dbx", "app", "other.app.db"]),
    ("app.*", ["app.db", "app.db.models"], ["app", "apps.x"]),
    ("app.*.models", ["app.db.models", "app.web.models.x"], ["app.models", "app.db.x.models"]),
    ("app.**.models", ["app.models", "app.db.models", "app.db.x.models"], ["app.db.modelsx"]),
    ("**.admin", ["admin", "django.contrib.admin", "django.contrib.admin.sites"], ["django.contrib.admins"]),
    ("**", ["anything.at.all"], []),
    ("app.db_?", ["app.db_x"], ["app.db_xy"]),
])
def test_module_patterns(pattern: str, yes: list[str], no: list[str]) -> None:
    regex = rules.module_regex(pattern)
    assert [n for n in yes if not rules.matches(regex, n)] == []
    assert [n for n in no if rules.matches(regex, n)] == []


@pytest.mark.parametrize(("pattern", "yes", "no"), [
    ("tests/", ["tests/a.py", "pkg/tests/b/c.py"], ["tests.py", "mytests/a.py"]),
    ("/build", ["build/x.py"], ["src/build/x.py"]),
    ("test_*.py", ["test_a.py", "pkg/test_b.py"], ["pkg/atest_b.py", "test_a.pyc"]),
    ("src/**/gen", ["src/gen/a.py", "src/x/y/gen/b.py"], ["gen/a.py"]),
    ("docs/*.py", ["docs/conf.py"], ["docs/x/conf.py"]),
])
def test_path_patterns(pattern: str, yes: list[str], no: list[str]) -> None:
    regex = rules.path_regex(pattern)
    assert [p for p in yes if not rules.matches(regex, p)] == []
    assert [p for p in no if rules.matches(regex, p)] == []


def weighted(edges: list[tuple[str, str, int]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for u, v, w in edges:
        graph.add_edge(u, v, weight=w)
    return graph


@pytest.mark.parametrize("seed", range(12))
def test_feedback_arcs_break_every_cycle_and_cut_nothing_needless(seed: int) -> None:
    graph = nx.gnp_random_graph(14, 0.22, seed=seed, directed=True)
    graph = weighted([(str(u), str(v), 1 + (u * v + seed) % 5) for u, v in graph.edges])
    cut = analysis.feedback_arcs(graph)
    rest = graph.copy()
    rest.remove_edges_from(cut)
    assert nx.is_directed_acyclic_graph(rest)
    for edge in cut:  # minimal: putting any cut edge back closes a cycle again
        back = rest.copy()
        back.add_edge(*edge)
        assert not nx.is_directed_acyclic_graph(back)


def test_feedback_arcs_prefer_the_light_edge() -> None:
    assert analysis.feedback_arcs(weighted([("a", "b", 9), ("b", "c", 7), ("c", "a", 1)])) == [("c", "a")]
    deferred = nx.DiGraph()
    deferred.add_edge("a", "b", weight=2, deferred=True)
    deferred.add_edge("b", "a", weight=1)
    assert analysis.feedback_arcs(deferred) == [("a", "b")]  # a deferred import weighs half


def test_cycles_of_mixed_edges_come_with_the_cycle_each_cut_closes() -> None:
    graph = nx.DiGraph()
    for u, v in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("x", "y"), ("y", "x")]:
        graph.add_edge(u, v, path=f"{u}.py", line=1, weight=1, kinds=["IMPORTS"])
    groups = analysis.cycles(graph)
    assert [g["modules"] for g in groups] == [["a", "b", "c"], ["x", "y"]]
    for g in groups:
        for cut in g["cut"]:
            closes = cut["closes"]
            assert closes[0] == closes[-1] == cut["source"] and closes[1] == cut["target"]
            assert all(graph.has_edge(u, v) for u, v in itertools.pairwise(closes))
    assert analysis.cyclic_edges(groups) == {("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "x")}


def test_collapse_opens_the_heaviest_folders_first() -> None:
    lines = {"pkg/__init__.py": 1, "pkg/big/a.py": 500, "pkg/big/b.py": 400, "pkg/big/deep/c.py": 300,
             "pkg/small/d.py": 5, "pkg/small/e.py": 5, "setup.py": 10}
    assert len(set(analysis.collapse(lines, 100).values())) == len(lines)  # room for every module
    assert set(analysis.collapse(lines, 4).values()) == {"pkg/big", "pkg/small", "pkg/__init__.py", "setup.py"}
    shown = analysis.collapse(lines, 5)
    assert len(set(shown.values())) == 5
    assert shown["pkg/small/d.py"] == shown["pkg/small/e.py"] == "pkg/small"  # light: stays folded
    assert shown["pkg/big/a.py"] == shown["pkg/big/b.py"] == "pkg/big/*"  # heavy: opened
    assert shown["pkg/big/deep/c.py"] == "pkg/big/deep/c.py"  # a folder of one module shows the module
    assert shown["setup.py"] == "setup.py"


def test_the_built_in_layout_draws_every_node_and_only_the_skeleton() -> None:
    graph = nx.DiGraph()
    for n in ["a", "b", "c", "d/*"]:
        graph.add_node(n, modules=1, loc=10, folder=n.endswith("*"), package=".", cyclic=n in "ab",
                       violating=False)
    for u, v, cut in [("a", "b", False), ("b", "a", True), ("a", "c", False), ("c", "d/*", False),
                      ("a", "d/*", False)]:
        graph.add_edge(u, v, weight=1, cut=cut, violating=False)
    layering, drawn = skeleton(graph)
    assert nx.is_directed_acyclic_graph(layering)
    assert ("a", "d/*") not in drawn  # implied by a → c → d/*
    assert ("b", "a") in drawn  # carries a cut: always drawn
    svg = layered_svg(graph, layering, drawn)
    assert svg.count("<rect") == 4 and svg.count("marker-end=") == len(drawn)


def findings(violations: list[dict], cycles: list[list[str]]) -> Findings:
    groups = [{"modules": sorted(c), "edges": [{"source": u, "target": v, "path": f"{u}.py", "line": 1, "weight": 1}
                                                for u, v in itertools.pairwise([*c, c[0]])], "cut": []}
              for c in cycles]
    return Findings(violations, groups)


def test_a_baseline_accepts_what_it_holds_and_reports_only_what_is_new() -> None:
    old_violation = {"rule": "layers: db must not depend on web", "source": "db", "target": "web", "path": "db.py",
                     "line": 3, "reason": ""}
    accepted = compare.baseline_of(findings([old_violation], [["a", "b"]]), "repo", "abc123")
    moved = {**old_violation, "line": 30}  # the same violation on another line
    new_violation = {**old_violation, "source": "db2", "path": "db2.py"}
    now = findings([moved, new_violation], [["a", "b", "c"]])  # c joined the old cycle
    found = compare.new_findings(accepted, now)
    assert found["new_violations"] == [new_violation] and found["fixed_violations"] == []
    assert [(e["source"], e["target"]) for e in found["new_cycles"]] == [("b", "c"), ("c", "a")]
    assert [(e["source"], e["target"]) for e in found["fixed_cycles"]] == [("b", "a")]
    assert found["new_cycles"][0]["closes"] == ["b", "c", "a", "b"]
    lines = compare.finding_lines(found)
    assert lines == ["violation: layers: db must not depend on web: db2 → web at db2.py:3",
                     "cycle: b → c at b.py:1 closes b → c → a → b", "cycle: c → a at c.py:1 closes c → a → b → c"]
    assert compare.new_findings(accepted, findings([old_violation], [["a", "b"]])) == {
        "new_violations": [], "fixed_violations": [], "new_cycles": [], "fixed_cycles": []}


def test_hotspots_say_why_and_ignore_a_metric_everyone_shares() -> None:
    modules = [{"module": f"m{i}", "path": f"m{i}.py", "package": ".", "loc": 10 * (i + 1)} for i in range(20)]
    deps = [{"source": f"m{i}", "target": "m0", "weight": 1, "kinds": ["IMPORTS"]} for i in range(1, 20)]
    deps += [{"source": "m19", "target": f"m{i}", "weight": 1, "kinds": ["IMPORTS"]} for i in range(1, 19)]
    graph = analysis.dependency_graph(modules, deps)
    churn = {f"m{i}.py": 2 for i in range(20)}  # two commits that touched everything
    hot = analysis.hotspots(graph, churn, 3, {"m0": ["in an import cycle of 2 modules"]}, commits=2)
    assert [h["module"] for h in hot][:2] in (["m0", "m19"], ["m19", "m0"])
    by_name = {h["module"]: h for h in hot}
    assert {"19 modules depend on it", "in an import cycle of 2 modules"} <= set(by_name["m0"]["why"])
    assert "depends on 19 modules" in by_name["m19"]["why"] and "200 lines" in by_name["m19"]["why"]
    assert not any("commits" in reason for h in hot for reason in h["why"])
    assert all(h["churn"] == 2 for h in hot)


def test_pagerank_agrees_with_networkx() -> None:
    """kg's PageRank avoids scipy; networkx's own pure-Python version (private, so skipped if it moves) is the
    reference on a weighted graph with cycles and nodes that depend on nothing."""
    from networkx.algorithms.link_analysis import pagerank_alg

    reference = getattr(pagerank_alg, "_pagerank_python", None)
    if reference is None:
        pytest.skip("networkx no longer ships _pagerank_python to compare with")
    graph = nx.gnp_random_graph(40, 0.08, seed=3, directed=True)
    graph = weighted([(str(u), str(v), 1 + (u + v) % 4) for u, v in graph.edges])
    graph.add_node("alone")
    ours, theirs = analysis.pagerank(graph), reference(graph, weight="weight")
    assert abs(sum(ours.values()) - 1) < 1e-9
    assert max(abs(ours[n] - theirs[n]) for n in graph) < 1e-6
