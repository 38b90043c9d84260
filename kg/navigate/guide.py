"""The Neo4j Browser guide: kg's impact questions as slides with runnable blocks filled in from the graph.

Built from the graph at the moment Browser asks for it, so the examples name symbols that exist: the function or
method with the most callers (impact, callers, tests), the one that calls most (callees) and the caller furthest
from the first (a call path). Each question is two blocks Browser runs as two frames, the `:params` line and then
the query: Browser runs a paste of several statements as a script whose frame shows no rows (see
kg.navigate.catalog). The query text is the named query's own file, the same the CLI runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from kg.errors import ConfigError
from kg.navigate import answers
from kg.navigate.catalog import describe
from kg.navigate.targets import pick_repo
from kg.review import rules as review_rules
from kg.store import Store


@dataclass(frozen=True)
class Examples:
    """Symbols of one repository that make each question answer something."""

    repo: str
    hub: str | None  # most callers: impact, callers, tests-for
    caller: str | None  # calls the most: callees
    far_caller: str | None  # reaches `hub` through the longest call chain: call path
    path_length: int


def cypher_literal(value: Any) -> str:
    """A Python value as a Cypher literal for a `:params` line (strings single-quoted and escaped)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {cypher_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


def params_line(params: dict[str, Any]) -> str:
    return ":params " + cypher_literal(params)


def examples(store: Store, repo: str) -> Examples:
    ranked = store.read("hotspots", repo=repo, limit=200)
    code = [r for r in ranked if r["kind"] in ("function", "method") and not _is_test(r)]
    hub = max(code, key=lambda r: (r["callers"], r["fan_in"]), default=None)
    caller = max(code, key=lambda r: r["fan_out"], default=None)
    far, length = None, 0
    if hub:
        chains = answers.callers(store, hub["symbol"], repo, depth=4, evidence="static", limit=500).rows
        if chains:
            best = max(chains, key=lambda r: (r["depth"], r["confidence"]))
            if best["kind"] != "module":
                far, length = best["caller"], best["depth"]
    return Examples(repo, hub and hub["symbol"], caller and caller["symbol"], far, length)


def _is_test(row: dict[str, Any]) -> bool:
    return row["symbol"].rsplit(".", 1)[-1].lower().startswith("test")


def render(store: Store, repo: str | None, base_url: str) -> str:
    """The guide's HTML for `repo` (default: the largest target repository) with links to the others' guides."""
    repos = store.read("repos")
    if not repos:
        return _page([_slide("kg has no repository in this graph yet",
                             "<p>Ingest one first, from a terminal: <code>kg ingest PATH</code>, then reload this "
                             "guide.</p>")])
    if repo is None:
        targets = [r for r in repos if r["role"] == "target"] or repos
        repo = max(targets, key=lambda r: (r["modules"], r["repo"]))["repo"]
    repo = pick_repo(store, repo)
    ex = examples(store, repo)
    slides = [_intro(repos, repo, base_url)]
    if ex.hub:
        slides += [_impact(ex), _callers(ex), _path(ex), _tests(ex)]
    else:
        slides.append(_slide("No calls yet", f"<p>kg found no calls between the functions of <b>{escape(repo)}</b>, "
                                             "so there is no blast radius to draw. The review questions still "
                                             "work.</p>"))
    slides += [_review(repo), _architecture(store, repo), _own_questions(repo, ex.hub)]
    return _page(slides)


# ── slides ──────────────────────────────────────────────────────────────────────────────────────────────────────


def _intro(repos: list[dict[str, Any]], repo: str, base_url: str) -> str:
    others = "".join(
        f'<li><a play-topic="{escape(base_url)}/guide.html?repo={escape(r["repo"])}">{escape(r["repo"])}</a> '
        f'({r["modules"]} modules, {escape(r["role"] or "")})</li>' for r in repos if r["repo"] != repo)
    switch = f"<p>Other repositories in this graph (click to open their guide):</p><ul>{others}</ul>" if others else ""
    return _slide(f"Impact questions about {repo}", f"""
<p>kg parsed <b>{escape(repo)}</b> into this graph: modules, classes, functions, methods and tests, with the
<code>CALLS</code>, <code>IMPORTS</code> and <code>INHERITS</code> edges between them. Every edge carries a
<code>confidence</code>: 1.0 when kg is sure, less for calls guessed by name or made dynamically.</p>
<p><b>First, kg's colours:</b> click
<a data-exec="style {escape(base_url)}/kg.grass">:style {escape(base_url)}/kg.grass</a> once (Browser keeps it).
Modules are blue, classes orange, functions cyan, methods purple, tests green (dark green as observed running),
decisions yellow, names from outside the project grey; each edge shows its confidence.</p>
<p><b>How to run a question:</b> each one has two blocks. Click the ▶ of the <code>:params</code> block first (it
sets the parameters), then the ▶ of the query. Clicking a block's text instead copies it into the editor, where
you can change a name before running it. Browser runs several statements pasted together as a script and shows
no rows for them, so keep the two apart.</p>
{switch}""")


def _impact(ex: Examples) -> str:
    params = {"repo": ex.repo, "qnames": [ex.hub], "depth": 3, "min_confidence": 0.0, "evidence": "all", "limit": 200}
    return _slide("What breaks if I change it? (impact)", f"""
<p><b>{escape(ex.hub or '')}</b> has the most callers in {escape(ex.repo)}. Its blast radius: everything that
reaches it through calls, imports or inheritance, up to three steps away. The picture shows each dependent's
strongest shortest path, with the confidence on every edge.</p>
{_question('impact_graph', params)}
<p>The same dependents as a table: depth, the edge kinds on the way and the weakest confidence of each path.</p>
{_block('impact')}""")


def _callers(ex: Examples) -> str:
    callers = {"repo": ex.repo, "qname": ex.hub, "depth": 2, "min_confidence": 0.0, "evidence": "all", "limit": 100}
    callees = {"repo": ex.repo, "qname": ex.caller, "depth": 1, "min_confidence": 0.0, "evidence": "all",
               "limit": 100}
    return _slide("Who calls it, and what does it call? (callers, callees)", f"""
<p>The callers of <b>{escape(ex.hub or '')}</b>, two steps back:</p>
{_question('callers_graph', callers)}
<p>As a table, with the call site (<code>call_path:call_line</code>) and where each caller is defined:</p>
{_block('callers')}
<p><b>{escape(ex.caller or '')}</b> calls the most. What it calls (grey nodes are outside the project):</p>
{_question('callees_graph', callees)}
{_block('callees')}""")


def _path(ex: Examples) -> str:
    if not ex.far_caller:
        return _slide("How does A reach B? (path)", "<p>Nothing calls the example symbol through a chain.</p>")
    params = {"repo": ex.repo, "source": ex.far_caller, "target": ex.hub, "depth": max(ex.path_length, 1) + 2,
              "evidence": "all", "limit": 5}
    return _slide("How does A reach B? (path)", f"""
<p>The shortest call paths from <b>{escape(ex.far_caller)}</b> to <b>{escape(ex.hub or '')}</b>
({ex.path_length} {'step' if ex.path_length == 1 else 'steps'}):</p>
{_question('call_path_graph', params)}
<p>Step by step, with the line of each call:</p>
{_block('call_path')}""")


def _tests(ex: Examples) -> str:
    params = {"repo": ex.repo, "qnames": [ex.hub], "depth": 8, "limit": 200}
    return _slide("Which tests should I run? (tests-for)", f"""
<p>The tests that reach <b>{escape(ex.hub or '')}</b> through calls, fixtures or test-module code; the
<code>test</code> column is the pytest node id. No row: no test reaches it, which is worth knowing too.
These tests are the green <code>:Test</code> symbols kg parsed.</p>
{_question('tests_for', params)}
<p>The tests seen running it when <code>kg observe</code> ran the suite (dark green <code>:ObservedTest</code>
nodes, one per pytest node id, joined to what they ran by <code>COVERS</code>); <code>stale</code> when its file
changed since. No row until the suite has been observed. <code>kg tests-for</code> combines both answers.</p>
{_block('tests_for_observed')}""")


def _review(repo: str) -> str:
    return _slide("Review: cycles, hotspots, dead code", f"""
<p><b>Import cycles</b> between modules of {escape(repo)} (none is a good answer):</p>
{_question('import_cycles', {"repo": repo, "max_length": 4, "limit": 50})}
<p><b>Hotspots</b>: where calls concentrate (high fan-in is risky to change, high fan-out knows too much):</p>
{_question('hotspots', {"repo": repo, "limit": 25})}
<p><b>Dead code</b>: what nothing in the project uses, each with why kg thinks so and how sure it is:</p>
{_question('dead_code', {"repo": repo, "include_public": False, "limit": 100})}""")


def _architecture(store: Store, repo: str) -> str:
    """The architecture review's own questions, with the repository's rules (.agent/architecture.yaml) when it
    has them; `kg review` puts every section of it on one page."""
    roots = [r["root"] for r in store.read("repos") if r["repo"] == repo and r["root"]]
    try:
        arch = review_rules.load(Path(roots[0]) / review_rules.RULES_FILE if roots else None)
    except ConfigError as e:
        arch, broken = review_rules.Architecture(), f"<p><b>{escape(str(e))}</b></p>"
    else:
        broken = ""
    scope = {"repo": repo, "exclude": arch.exclude_regexes()}
    if arch.has_rules:
        rules_text = "<p><b>Rule violations</b> of the repository's <code>.agent/architecture.yaml</code>:</p>"
        checks = _question("review/rule_violations", {**scope, **arch.dependency_params()})
    else:
        rules_text = ("<p><b>Rules</b>: write <code>.agent/architecture.yaml</code> in the repository (layers, "
                      "forbidden dependencies, independent modules, limits; see the README), then reopen this "
                      "guide. Here, an example forbidding nothing:</p>")
        checks = _question("review/rule_violations", {**scope, "layers": [], "forbidden": [], "independent": [],
                                                      "allowed": []})
    return _slide("Architecture: dependencies, coupling, rules", f"""
<p>Module dependencies of {escape(repo)} (imports of any form, tests and docs left out), drawn:</p>
{_question('review/dependency_graph', {**scope, "limit": 300})}
<p><b>Coupling per package</b>: Ca (who depends on it), Ce (what it depends on), instability Ce / (Ca + Ce):</p>
{_question('review/package_coupling', scope)}
{broken}{rules_text}
{checks}
<p><code>kg review</code> writes all of it as one page: the package diagram, every cycle with the edges to cut,
hotspots, coupling, dead code and the decisions about what is hot or broken.</p>""")


def _own_questions(repo: str, example: str | None) -> str:
    return _slide("Your own questions", f"""
<p>Every block in this guide is one file of kg's <code>queries/</code> folder, the same text <code>kg</code>
runs from the command line. To ask about another symbol, click a <code>:params</code> block's text, change the
name in the editor and run it, then run the query again. <code>:params</code> alone shows what is set.</p>
<p>Names are dotted (<code>package.module.Class.method</code>); a unique end of one finds the rest:</p>
{_question('find_symbol', {"symbol": (example or repo).rsplit(".", 1)[-1], "repo": repo, "limit": 50})}
<p>From a terminal: <code>kg query --list</code> lists every question, <code>kg find NAME</code> finds a symbol
from a part of its name or a typo.</p>""")


# ── html ────────────────────────────────────────────────────────────────────────────────────────────────────────


def _question(name: str, params: dict[str, Any]) -> str:
    """The two blocks of a question: its `:params` line, then its query."""
    info = describe(name)
    missing = set(info.used) - set(params)
    if missing:  # a guide block that cannot run is a bug in this module, not something to show a person
        raise ValueError(f"guide block for {name} lacks {sorted(missing)}")
    line = params_line({k: v for k, v in params.items() if k in info.used})
    return f'<pre class="runnable">{escape(line)}</pre>\n{_block(name)}'


def _block(name: str) -> str:
    body = "\n".join(line for line in describe(name).body.splitlines() if not line.lstrip().startswith("//"))
    return f'<pre class="runnable" data-query="{escape(name)}">{escape(body)}</pre>'


def _slide(title: str, body: str) -> str:
    return f'<slide class="row-fluid">\n<div class="col-sm-12">\n<h3>{escape(title)}</h3>\n{body}\n</div>\n</slide>'


def _page(slides: list[str]) -> str:
    return ('<article class="guide">\n<carousel class="deck container-fluid">\n' + "\n".join(slides)
            + "\n</carousel>\n</article>\n")


def summary(html: str) -> dict[str, Any]:
    """How many slides and runnable blocks a guide has (for `kg browser --json` and the tests)."""
    return {"slides": html.count("<slide"), "blocks": html.count('class="runnable"')}


