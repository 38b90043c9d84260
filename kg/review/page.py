"""The review as one self-contained HTML page: inline CSS, SVG and a little JavaScript, nothing fetched, the review's
data embedded as JSON (so the page itself can serve as the stored review for `--since`)."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from importlib import resources
from typing import Any

import jinja2

from kg.navigate.catalog import source
from kg.navigate.guide import params_line
from kg.review.collect import Query, Review
from kg.review.diagram import Diagram, anchor

DEAD_CODE_ROWS = 300  # candidates listed on the page (largest first); all of them are in the JSON


def browser_params(query: Query) -> str:
    """The `:params` line holding the values the review used: run it in Neo4j Browser before the query (a paste of
    both would run as a script whose frame shows no rows; see kg.navigate.catalog)."""
    return params_line(query.params) + "\n"


def browser_query(query: Query) -> str:
    """The query file without its `:param` lines: paste it after the parameters."""
    lines = [line for line in source(query.name).splitlines() if not line.lstrip().startswith(":param")]
    return "\n".join(lines).strip() + "\n"


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("kg.review", "."), autoescape=True, trim_blocks=True,
                             lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["n"] = lambda v: "" if v is None else f"{v:,}" if isinstance(v, int) else f"{v:,.2f}"
    env.filters["signed"] = lambda v: "" if v is None else f"{v:+,}" if isinstance(v, int) else f"{v:+,.2f}"
    env.globals.update(anchor=anchor, browser_params=browser_params, browser_query=browser_query)
    env.tests["length_at_least"] = lambda value, n: len(value) >= n
    return env


def _asset(name: str) -> str:
    return resources.files("kg.review").joinpath(name).read_text(encoding="utf-8")


def render(review: Review, diagram: Diagram) -> str:
    """The page. Everything it shows comes from `review`; `diagram` is the SVG drawn from its graph."""
    data = review.to_dict()
    dead_rows = sorted(review.dead_code["rows"], key=lambda r: (-(r.get("lines") or 0), r["path"], r["line"]))
    dead_by_package = Counter(r["path"].rsplit("/", 1)[0] if "/" in r["path"] else "." for r in dead_rows)
    decisions_by_module: dict[str, list[dict[str, Any]]] = {}
    for d in review.decisions:
        decisions_by_module.setdefault(d["module"], []).append(d)
    embedded = json.dumps(data, default=str, separators=(",", ":")).replace("</", "<\\/")
    return _environment().get_template("report.html.j2").render(
        r=review, diagram=diagram,
        cycle_query=lambda group: Query("review/cycle_graph", {"repo": review.repo, "modules": group["modules"]}),
        style=_asset("report.css"), script=_asset("report.js"), embedded=embedded,
        dead_rows=dead_rows[:DEAD_CODE_ROWS], dead_by_package=dead_by_package.most_common(12),
        decisions_by_module=decisions_by_module,
        violations_by_rule=Counter(v["rule"] for v in review.violations).most_common(),
        cut_total=sum(len(g["cut"]) for g in review.cycles),
        cycle_modules=sum(len(g["modules"]) for g in review.cycles),
        max_score=max((h["score"] for h in review.hotspots), default=1) or 1)
