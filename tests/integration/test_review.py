"""`kg review` against the real Neo4j on real files: tests/fixtures/review (import cycles in three import forms, a
layering break, a forbidden-but-allowed import, an independence break, a fan-out limit) and the bundled tinyshop.
Checks the DEPENDS_ON layer ingest derives, the rules, cycles, baselines, --since, the bad inputs and the page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from kg.ingest.cache import parser_fingerprint
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import MODEL

from kg.cli import cli
from kg.errors import InputError
from kg.git import git
from kg.navigate import answers
from kg.review import collect as collect_module
from kg.review import rules
from kg.review.collect import collect, findings
from kg.settings import Settings
from kg.store import Store, Transaction

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "review"
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
RULES = FIXTURE / ".agent" / "architecture.yaml"


def run(settings: Settings, *args: str) -> tuple[int, str, str]:
    """The kg command in this process (CliRunner), against the test server."""
    env = {"KG_BOLT_PORT": str(settings.bolt_port), "KG_HTTP_PORT": str(settings.http_port),
           "KG_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=kg", "-c", "user.email=kg@example.invalid", "commit", "-q", "-m", message)


@pytest.fixture
def app(store: Store, tmp_path: Path) -> Path:
    """A copy of the review fixture, ingested as `app`."""
    root = tmp_path / "app"
    shutil.copytree(FIXTURE, root)
    Ingestor(store, root, repo="app").run()
    return root


def depends_on(store: Store, repo: str) -> dict[tuple[str, str], dict]:
    rows = store.read("review/dependencies", repo=repo, exclude=[])
    return {(r["source"], r["target"]): r for r in rows}


def test_ingest_derives_depends_on_from_every_import_form(store: Store, app: Path) -> None:
    deps = depends_on(store, "app")
    assert deps["app.util.a", "app.util.b"]["line"] == 1  # import app.util.b
    assert deps["app.util.b", "app.util.c"]["line"] == 1  # from app.util.c import third
    assert deps["app.util.c", "app.util.a"]["line"] == 2  # from app.util import a
    assert deps["app.core.rules", "app.core.services"]["kinds"] == ["IMPORTS", "CALLS"]
    # imported inside Order.html (and under `if TYPE_CHECKING:` at line 4, which never runs: not the line cited)
    assert (deps["app.db.models", "app.web.views"]["deferred"], deps["app.db.models", "app.web.views"]["line"]) \
        == (True, 12)
    assert deps["app.db.models", "app.web.views"]["type_only"] is False
    assert deps["app.web.views", "app.db.models"]["deferred"] is False
    assert deps["app.typed.schema", "app.typed.forms"]["type_only"] is True  # under `if TYPE_CHECKING:`
    assert deps["app.typed.forms", "app.typed.schema"]["type_only"] is False
    assert all(a != b for a, b in deps)


def test_cycles_of_mixed_import_forms_are_found_with_edges_to_cut(store: Store, app: Path) -> None:
    found = findings(store, "app", rules.Architecture())
    groups = {tuple(g["modules"]): g for g in found.cycles}
    # (app.typed.forms ↔ app.typed.schema is no cycle: the way back is a type-only import)
    assert set(groups) == {("app.util.a", "app.util.b", "app.util.c"),
                           ("app.core.rules", "app.core.services", "app.db.models", "app.web.views")}
    util = groups["app.util.a", "app.util.b", "app.util.c"]
    assert len(util["cut"]) == 1 and util["cut"][0]["closes"][0] == util["cut"][0]["closes"][-1]
    # The navigation query finds the same mixed cycle through DEPENDS_ON.
    rows = answers.cycles(store, "app", max_length=8).rows
    assert ["app.util.a", "app.util.b", "app.util.c"] in [r["modules"] for r in rows]
    assert not any("app.typed.forms" in r["modules"] for r in rows)
    three = next(r for r in rows if r["modules"] == ["app.util.a", "app.util.b", "app.util.c"])
    assert three["lines"] == [1, 1, 2]


def test_rules_name_both_modules_the_line_and_the_rule(store: Store, app: Path) -> None:
    found = findings(store, "app", rules.load(RULES))
    got = {(v["rule"], v["source"], v["target"], v["path"], v["line"]) for v in found.violations}
    assert got == {
        ("layers: db must not depend on web", "app.db.models", "app.web.views", "app/db/models.py", 12),
        ("independent: app.util.a, app.util.b", "app.util.a", "app.util.b", "app/util/a.py", 1),
        ("limits: app.web.*: max_fan_out 1", "app.web.views", None, "app/web/views.py", None),
    }  # app.util.c → app.db.models is forbidden but allowed; web → core → db runs downwards
    fan_out = next(v for v in found.violations if v["rule"].startswith("limits"))
    assert fan_out["reason"] == "fan_out 2 > 1"


def test_rule_patterns_mean_the_same_in_python_and_in_neo4j(store: Store) -> None:
    names = ["app", "app.db", "app.db.models", "app.dbx", "x.app.db", "django.contrib.admin.sites"]
    paths = ["tests/a.py", "pkg/tests/b.py", "test_a.py", "pkg/test_b.py", "src/build/x.py", "docs/conf.py"]
    for pattern, texts, to_regex in [("app.db", names, rules.module_regex), ("app.*", names, rules.module_regex),
                                     ("**.admin", names, rules.module_regex), ("tests/", paths, rules.path_regex),
                                     ("test_*.py", paths, rules.path_regex), ("docs/*.py", paths, rules.path_regex)]:
        regex = to_regex(pattern)
        in_neo4j = store.read_text("UNWIND $texts AS t RETURN t, t =~ $regex AS hit", texts=texts, regex=regex)
        assert {r["t"] for r in in_neo4j if r["hit"]} == {t for t in texts if rules.matches(regex, t)}, pattern


def test_check_against_a_baseline_fails_only_on_what_is_new(graph_settings: Settings, store: Store,
                                                            app: Path) -> None:
    code, out, _ = run(graph_settings, "review", "--repo", "app", "--check")
    assert code == 3
    assert "violation: layers: db must not depend on web: app.db.models → app.web.views at app/db/models.py:12" in out
    assert "cycle: app.util.c → app.util.a at app/util/c.py:2 closes app.util.c → app.util.a → app.util.b → " \
           "app.util.c" in out.splitlines()

    code, out, _ = run(graph_settings, "review", "--repo", "app", "--check", "--update-baseline")
    assert code == 0 and (app / ".agent" / "review-baseline.json").exists()
    code, out, err = run(graph_settings, "review", "--repo", "app", "--check")
    assert (code, out) == (0, "") and "passed" in err

    # A new import breaks the layering and closes a new cycle: only those are reported.
    services = app / "app" / "core" / "services.py"
    services.write_text("from app.web.views import render\n" + services.read_text())
    Ingestor(store, app, repo="app").run()
    code, out, _ = run(graph_settings, "review", "--repo", "app", "--check", "--json")
    verdict = json.loads(out)
    assert code == 3 and verdict["passed"] is False
    assert [(v["source"], v["target"], v["line"]) for v in verdict["new_violations"]] == [
        ("app.core.services", "app.web.views", 1)]
    assert ("app.core.services", "app.web.views") in {(c["source"], c["target"]) for c in verdict["new_cycles"]}
    assert verdict["fixed_violations"] == []


def test_review_page_and_json(graph_settings: Settings, store: Store, app: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "review.html"
    code, out, err = run(graph_settings, "review", "--repo", "app", "-o", str(out_file), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["kind"] == "kg-review/1" and data["output"] == str(out_file)
    assert data["scope"]["modules"] == 15 and data["rules_file"].endswith("architecture.yaml")
    assert {v["source"] for v in data["violations"]} == {"app.db.models", "app.util.a", "app.web.views"}
    assert data["hotspots"][0]["why"]  # each hotspot says why
    assert {q["name"] for qs in data["queries"].values() for q in qs} >= {
        "review/modules", "review/dependencies", "review/rule_violations", "review/limit_violations",
        "review/package_coupling", "review/decisions", "dead_code"}
    html = out_file.read_text()
    for heading in ("Dependencies", "Import cycles", "Rule violations", "Hotspots", "Coupling per package",
                    "Dead code", "Decisions about hot or broken modules"):
        assert f"<h2>{heading}</h2>" in html
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html  # nothing fetched
    assert "layers: [{name: &#39;web&#39;, modules: [" in html and ":params {repo: &#39;app&#39;" in html


def test_each_section_query_runs_as_printed(graph_settings: Settings, store: Store, app: Path) -> None:
    """The Cypher a section prints (its `:params` line with the values used, then the query) gives its rows."""
    from kg.review.page import browser_params, browser_query

    review = collect(store, "app", rules.load(RULES))
    for section, queries in review.queries.items():
        for q in queries:
            line = browser_params(q).strip()
            assert line.startswith(":params {") and "\n" not in line
            params = store.read_text(f"RETURN {line.removeprefix(':params')} AS p")[0]["p"]
            assert params == q.params, (section, q.name)
            text = browser_query(q)
            assert ":param" not in text and text.startswith("//")
            assert store.read_text(text, **params) == store.read(q.name, **q.params)


def test_decisions_about_broken_modules_are_shown(graph_settings: Settings, store: Store, app: Path) -> None:
    # No Decision exists yet (the label is unknown to the graph): the query still answers, with nothing.
    assert store.read("review/decisions", repo="app", paths=["app/db/models.py"]) == []
    code, _, err = run(graph_settings, "decide", "Orders render themselves", "--about", "app/db/models.py",
                       "--why", "legacy templates call Order.html", "--repo", "app")
    assert code == 0, err
    review = collect(store, "app", rules.load(RULES))
    assert [(d["module"], d["decision"], d["stale"]) for d in review.decisions] == [
        ("app.db.models", "Orders render themselves", False)]
    (app / "app" / "db" / "models.py").write_text((app / "app" / "db" / "models.py").read_text() + "\n# edited\n")
    Ingestor(store, app, repo="app").run()
    assert [d["stale"] for d in collect(store, "app", rules.load(RULES)).decisions] == [True]


def test_since_a_git_revision_shows_what_got_worse(graph_settings: Settings, store: Store, tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q")
    commit(root, "first")
    (root / "app" / "core" / "services.py").write_text("from app.web.views import render\n\n\ndef place_order(o):\n"
                                                         "    return render(o)\n")
    commit(root, "second")
    Ingestor(store, root, repo="app").run()
    out_file = tmp_path / "review.html"
    code, out, err = run(graph_settings, "review", "--repo", "app", "--since", "HEAD~1", "-o", str(out_file), "--json")
    assert code == 0, err
    changes = json.loads(out)["changes"]
    assert changes["since"] == "HEAD~1" and len(changes["before_revision"]) == 12
    assert [(v["source"], v["target"]) for v in changes["new_violations"]] == [("app.core.services", "app.web.views")]
    counts = {c["name"]: c for c in changes["counts"]}
    assert counts["rule violations"]["verdict"] == "worse" and counts["rule violations"]["delta"] == 1
    assert [r["repo"] for r in store.read("repos")] == ["app"]  # the temporary repository is gone
    # The page itself is a stored review: comparing with it shows no change.
    code, out, _ = run(graph_settings, "review", "--repo", "app", "--since", str(out_file), "--json")
    again = json.loads(out)["changes"]
    assert again["new_violations"] == [] and again["new_cycles"] == [] and again["since"] == "review.html"
    # The terminal says in one line what got better or worse (newuser3: only the page and --json did)
    code, out, err = run(graph_settings, "review", "--repo", "app", "--since", "HEAD~1", "-o", str(out_file))
    assert code == 0, err
    assert "since HEAD~1: " in out and "rule violations +1 (worse)" in out


def test_bad_input_is_one_line(graph_settings: Settings, store: Store, app: Path, tmp_path: Path) -> None:
    code, _, err = run(graph_settings, "review", "--repo", "nope")
    assert code == 1 and "no repository named 'nope'" in err and len(err.strip().splitlines()) == 1

    broken = tmp_path / "broken.yaml"
    broken.write_text("layers:\n  - name: web\n    modulez: [app.web]\n")
    code, _, err = run(graph_settings, "review", "--repo", "app", "--rules", str(broken), "--check")
    assert code == 1 and "layers.0.modulez: unknown key" in err and len(err.strip().splitlines()) == 1

    code, _, err = run(graph_settings, "review", "--repo", "app", "--check", "--baseline", str(tmp_path / "no.json"))
    assert code == 1 and "no baseline file" in err

    code, _, err = run(graph_settings, "review", "--repo", "app", "--since", "no-such-rev", "-o",
                       str(tmp_path / "r.html"))
    assert code == 1 and "no-such-rev" in err and len(err.strip().splitlines()) == 1


def test_a_graph_from_an_older_kg_is_refused_then_rewritten(store: Store, app: Path) -> None:
    """An older kg wrote no model version and no DEPENDS_ON: the review refuses it with the fix, and the next
    ingest rewrites every file once although none changed."""
    def older_kg(tx: Transaction) -> None:
        tx.write("ingest/repo_model_put", repo="app", model=1, parser=parser_fingerprint())
        tx._tx.run("MATCH (:Module {repo: 'app'})-[d:DEPENDS_ON]->() DELETE d").consume()

    store.transaction(older_kg)
    with pytest.raises(InputError, match="ingested by an older kg .* run `kg ingest .* --repo app` again"):
        collect_module.target(store, "app")
    report = Ingestor(store, app, repo="app").run()
    assert report.written == report.files + report.documents  # every file rewritten once
    assert collect_module.target(store, "app").repo == "app" and MODEL == collect_module.MODEL
    assert len(depends_on(store, "app")) == 12
    assert Ingestor(store, app, repo="app").run().written == 0  # and only once


def test_no_git_history_and_no_graphviz_are_said_once(graph_settings: Settings, store: Store, app: Path,
                                                     tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "git").symlink_to(shutil.which("git"))  # git, but no Graphviz on this PATH
    env = {**os.environ, "PATH": str(bare), "KG_BOLT_PORT": str(graph_settings.bolt_port),
           "KG_HTTP_PORT": str(graph_settings.http_port), "KG_DATA_DIR": str(graph_settings.data_dir)}
    out_file = tmp_path / "review.html"
    done = subprocess.run([str(Path(os.sys.executable).parent / "kg"), "review", "--repo", "app", "-o",
                           str(out_file)], capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("note:")]
    assert sum("no git history" in n for n in notes) == 1  # the copy in tmp_path is outside any git repository
    assert sum("Graphviz is not installed" in n for n in notes) == 1
    html = out_file.read_text()
    assert "kg&#39;s built-in layered layout" in html and html.count("<rect") >= 5


def test_the_page_renders_in_headless_chromium(graph_settings: Settings, store: Store, app: Path,
                                               tmp_path: Path) -> None:
    """Chromium lays the page out; a probe script appended to a copy reports what is visible (headings with a
    size, diagram boxes drawn, the cycle table's rows) into the DOM that --dump-dom prints."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    out_file = tmp_path / "review.html"
    code, _, err = run(graph_settings, "review", "--repo", "app", "-o", str(out_file))
    assert code == 0, err
    probe = """<script>
      const seen = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
      const result = {
        headings: [...document.querySelectorAll("h2")].filter(seen).map((h) => h.textContent.trim()),
        boxes: [...document.querySelectorAll("svg.diagram g.node, svg.diagram rect")].filter(seen).length,
        width: document.querySelector("svg.diagram").getBoundingClientRect().width,
        cuts: [...document.querySelectorAll("#cycles tbody tr")].filter(seen).length,
      };
      document.body.insertAdjacentHTML("beforeend", "<pre id=probe>" + JSON.stringify(result) + "</pre>");
    </script>"""
    probed = tmp_path / "probed.html"
    probed.write_text(out_file.read_text().replace("</body>", probe + "</body>"))
    profile = tmp_path / "profile"
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
                           "--window-size=1440,900", "--dump-dom", probed.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    marker = done.stdout.split('<pre id="probe">', 1)
    assert len(marker) == 2, done.stderr[-500:]
    result = json.loads(marker[1].split("</pre>", 1)[0].replace("&quot;", '"'))
    assert result["headings"][:3] == ["Dependencies", "Import cycles", "Rule violations"]
    assert {"Hotspots", "Coupling per package", "Dead code"} <= set(result["headings"])
    assert result["boxes"] >= 5 and result["width"] > 100
    assert result["cuts"] >= 2


def test_the_page_goes_to_kgs_cache_not_into_the_repository(graph_settings: Settings, store: Store, app: Path,
                                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser5 #9: `kg review` wrote review.html into the repository's root (the current folder), an untracked
    file in the user's git tree. It goes to kg's cache folder now, and the summary prints where, and says that
    the module count leaves tests and docs out (it differed from `kg status` without a word)."""
    (app / "tests").mkdir(exist_ok=True)
    (app / "tests" / "test_views.py").write_text("def test_nothing():\n    assert True\n")  # the review leaves it out
    Ingestor(store, app, repo="app").run()
    monkeypatch.chdir(app)
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    code, out, _ = run(graph_settings, "review", "--repo", "app")
    assert code == 0, out
    page = (tmp_path / "cache" / "reviews" / "app.html").resolve()
    assert page.is_file() and "<h2>Dependencies</h2>" in page.read_text()
    assert not list(app.rglob("review.html"))
    summary = " ".join(out.split())
    assert f"→ {page} in " in summary
    assert summary.startswith("app: 15 modules (of 16: tests, docs and the rules' `exclude` leave out 1) · "), summary
