"""The package diagram as inline SVG: Graphviz `dot` when it is installed, a built-in layered layout otherwise.

Both draw the same picture: one box per package (folder) or folded group of packages, dependencies pointing down
towards what is depended on, red where an import cycle runs, orange where a rule is broken. Boxes link to the
package's row in the coupling table.
"""

from __future__ import annotations

import html
import math
import re
import shutil
import subprocess
from dataclasses import dataclass

import networkx as nx

from kg.review.analysis import feedback_arcs

CYCLE = "#d62728"
VIOLATION = "#ff7f0e"
PLAIN_EDGE = "#9aa5b1"
NODE_FILL = "#eef3f8"
CYCLE_FILL = "#fbe3e3"
NODE_LINE = "#5b6b7b"
DOT_TIMEOUT = 60  # seconds; a layout that takes longer falls back to the built-in one


@dataclass(frozen=True)
class Diagram:
    svg: str
    engine: str  # "graphviz" or "built-in"
    note: str | None  # said once when Graphviz was missing or failed
    nodes: int = 0
    edges: int = 0  # dependencies between the boxes
    drawn: int = 0  # of which drawn (see `skeleton`)


def anchor(package: str) -> str:
    """The HTML id of a package's coupling row."""
    return "pkg-" + re.sub(r"[^A-Za-z0-9_-]+", "-", package).strip("-")


def render(packages: nx.DiGraph, dot: str | None = "auto") -> Diagram:
    """SVG of the folded package graph; `dot` is the Graphviz binary, "auto" to look it up, None for the fallback."""
    if not packages:
        return Diagram("<p class=empty>No modules to draw.</p>", "none", None)
    layering, drawn = skeleton(packages)
    size = {"nodes": packages.number_of_nodes(), "edges": packages.number_of_edges(), "drawn": len(drawn)}
    binary = shutil.which("dot") if dot == "auto" else dot
    note = "Graphviz is not installed (apt-get install graphviz): the diagram uses kg's built-in layout"
    if binary:
        try:
            return Diagram(_graphviz(packages, layering, drawn, binary), "graphviz", None, **size)
        except (OSError, subprocess.SubprocessError) as e:
            note = f"Graphviz failed ({str(e).splitlines()[0][:120]}): the diagram uses kg's built-in layout"
    return Diagram(layered_svg(packages, layering, drawn), "built-in", note, **size)


def skeleton(packages: nx.DiGraph) -> tuple[nx.DiGraph, set[tuple[str, str]]]:
    """(the layering, the edges to draw). The layering is the package graph without a minimal set of edges that
    close package-level loops; the drawing keeps only its transitive reduction (an arrow implied by a path of
    others is left out) plus every edge that carries a suggested cut or a broken rule. What is left out is in the
    coupling table and the matrix."""
    layering = nx.DiGraph(packages.edges)
    layering.add_nodes_from(packages)
    for component in nx.strongly_connected_components(packages):
        if len(component) > 1:
            layering.remove_edges_from(feedback_arcs(packages.subgraph(component)))
    drawn = set(nx.transitive_reduction(layering).edges)
    drawn |= {(u, v) for u, v, attrs in packages.edges(data=True) if _marked(attrs)}
    return layering, drawn


def _label(name: str, attrs: dict) -> tuple[str, str, str]:
    """(first line, second line, tooltip) of a node: a folder, the modules directly in a folder, or one module."""
    if name.endswith("/*"):
        folder = name[:-2]
        return _short(folder) + "/*", f"{attrs['modules']} modules · {_k(attrs['loc'])}", \
            f"the {attrs['modules']} modules directly in {folder}/ ({attrs['loc']:,} lines)"
    if attrs["folder"]:
        return _short(name) + "/", f"{attrs['modules']} modules · {_k(attrs['loc'])}", \
            f"{name}/: {attrs['modules']} modules, {attrs['loc']:,} lines"
    return _short(name), _k(attrs["loc"]), f"{name}: {attrs['loc']:,} lines"


def _short(name: str) -> str:
    """The last two parts of a folder path: enough to tell boxes apart without crowding."""
    parts = name.split("/")
    return "/".join(parts[-2:]) if len(parts) > 2 else name


def _node_style(attrs: dict) -> tuple[str, str, float]:
    """(fill, outline, outline width): a tint for a cycle, a thick orange outline for a broken rule."""
    fill = CYCLE_FILL if attrs["cyclic"] else NODE_FILL
    if attrs["violating"]:
        return fill, VIOLATION, 2.6
    return fill, CYCLE if attrs["cyclic"] else NODE_LINE, 1.2


def _edge_colour(attrs: dict) -> str:
    return VIOLATION if attrs["violating"] else CYCLE if attrs["cut"] else PLAIN_EDGE


def _marked(attrs: dict) -> bool:
    return attrs["cut"] or attrs["violating"]


def _graphviz(packages: nx.DiGraph, layering: nx.DiGraph, drawn: set[tuple[str, str]], binary: str) -> str:
    lines = ["digraph packages {", 'graph [rankdir=TB, nodesep=0.15, ranksep=0.35, splines=true, '
             'fontname="Helvetica", bgcolor="transparent", outputorder=edgesfirst];',
             'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.08,0.04", '
             f'fillcolor="{NODE_FILL}", penwidth=1.2];',
             'edge [arrowsize=0.5];']
    ids = {n: f"n{i}" for i, n in enumerate(sorted(packages))}
    for n in sorted(packages):
        attrs = packages.nodes[n]
        first, second, title = _label(n, attrs)
        fill, outline, width = _node_style(attrs)
        lines.append(f'{ids[n]} [label="{_dot(first)}\\n{_dot(second)}", tooltip="{_dot(title)}", '
                     f'href="#{anchor(attrs["package"])}", color="{outline}", fillcolor="{fill}", penwidth={width}];')
    for u, v in sorted(drawn):
        attrs = packages.edges[u, v]
        marked = _marked(attrs)
        width = (1.8 if marked else 0.8) + min(2.0, math.log10(attrs["weight"]))
        lines.append(f'{ids[u]} -> {ids[v]} [color="{_edge_colour(attrs)}", penwidth={width:.2f}, '
                     f'tooltip="{_dot(u)} → {_dot(v)}: {attrs["weight"]} module dependencies"'
                     + ("" if layering.has_edge(u, v) else ", constraint=false") + "];")
    lines.append("}")
    done = subprocess.run([binary, "-Tsvg"], input="\n".join(lines), capture_output=True, text=True,
                          timeout=DOT_TIMEOUT, check=False)
    if done.returncode != 0:
        raise subprocess.SubprocessError(done.stderr.strip() or f"dot exited with {done.returncode}")
    svg = done.stdout[done.stdout.index("<svg"):]
    return svg.replace("<svg ", '<svg class="diagram" ', 1)


def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _k(loc: int) -> str:
    return f"{loc / 1000:.1f}k lines" if loc >= 1000 else f"{loc} lines"


# ── the built-in layout: layers by dependency depth, order by barycentre ──────────────────────────────────────

BOX_H = 34
LAYER_GAP = 70
BOX_GAP = 14
CHAR_W = 6.6


def layered_svg(packages: nx.DiGraph, layering: nx.DiGraph, drawn: set[tuple[str, str]],
                max_width: float = 1400) -> str:
    """A Sugiyama-style drawing without Graphviz: the lightest edges that close cycles are set aside (a minimal
    feedback arc set), every node goes one layer below everything that depends on it, a layer wider than the page
    wraps onto several rows, and a few barycentre sweeps order each row."""
    depth: dict[str, int] = {}
    for n in nx.topological_sort(layering):  # dependents first: a node sits below all that depend on it
        depth[n] = 1 + max((depth[p] for p in layering.predecessors(n)), default=-1)
    labels = {n: _label(n, packages.nodes[n]) for n in packages}
    widths = {n: max(len(labels[n][0]) * CHAR_W, len(labels[n][1]) * CHAR_W * 0.85) + 18 for n in packages}
    rows: list[list[str]] = []
    for level in range(max(depth.values()) + 1):
        row: list[str] = []
        for n in sorted(n for n in packages if depth[n] == level):
            if row and sum(widths[m] + BOX_GAP for m in row) + widths[n] > max_width:
                rows.append(row)
                row = []
            row.append(n)
        rows.append(row)
    for _ in range(4):
        for i in range(1, len(rows)):
            rows[i] = _by_barycentre(rows[i], rows[i - 1], layering)
        for i in range(len(rows) - 2, -1, -1):
            rows[i] = _by_barycentre(rows[i], rows[i + 1], layering)

    row_widths = [sum(widths[n] for n in row) + BOX_GAP * (len(row) - 1) for row in rows]
    width = max(row_widths) + 40
    pos: dict[str, tuple[float, float]] = {}
    for i, row in enumerate(rows):
        x = (width - row_widths[i]) / 2
        for n in row:
            pos[n] = (x, 20 + i * (BOX_H + LAYER_GAP))
            x += widths[n] + BOX_GAP
    height = 20 + len(rows) * (BOX_H + LAYER_GAP)

    parts = [f'<svg class="diagram" viewBox="0 0 {width:.0f} {height:.0f}" preserveAspectRatio="xMidYMin meet" '
             'xmlns="http://www.w3.org/2000/svg" font-family="Helvetica, Arial, sans-serif">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>']
    for u, v, attrs in sorted(((u, v, packages.edges[u, v]) for u, v in drawn), key=lambda e: (_marked(e[2]), e[:2])):
        (x1, y1), (x2, y2) = pos[u], pos[v]
        sx, tx = x1 + widths[u] / 2, x2 + widths[v] / 2
        if y2 > y1:
            sy, ty = y1 + BOX_H, y2
            mid = (sy + ty) / 2
            path = f"M{sx:.0f},{sy:.0f} C{sx:.0f},{mid:.0f} {tx:.0f},{mid:.0f} {tx:.0f},{ty:.0f}"
        else:  # upwards or sideways (an edge set aside to break a cycle): loop out to the side
            sy, ty = y1 + BOX_H / 2, y2 + BOX_H / 2
            sx, tx = x1 + widths[u], x2 + widths[v]
            bend = 30 + abs(sy - ty) / 3
            path = f"M{sx:.0f},{sy:.0f} C{sx + bend:.0f},{sy:.0f} {tx + bend:.0f},{ty:.0f} {tx:.0f},{ty:.0f}"
        marked = _marked(attrs)
        stroke = (1.6 if marked else 0.6) + min(2.0, math.log10(attrs["weight"]))
        parts.append(f'<path d="{path}" fill="none" stroke="{_edge_colour(attrs)}" stroke-width="{stroke:.2f}" '
                     f'stroke-opacity="{1 if marked else 0.5}" marker-end="url(#arrow)"><title>'
                     f'{html.escape(u)} → {html.escape(v)}: {attrs["weight"]} module dependencies</title></path>')
    for n in packages:
        x, y = pos[n]
        attrs = packages.nodes[n]
        first, second, title = labels[n]
        fill, outline, line = _node_style(attrs)
        centre = x + widths[n] / 2
        parts.append(
            f'<a href="#{anchor(attrs["package"])}"><g><title>{html.escape(title)}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{widths[n]:.0f}" height="{BOX_H}" rx="6" fill="{fill}" '
            f'stroke="{outline}" stroke-width="{line}"/>'
            f'<text x="{centre:.0f}" y="{y + 14:.0f}" text-anchor="middle" font-size="11">{html.escape(first)}</text>'
            f'<text x="{centre:.0f}" y="{y + 27:.0f}" text-anchor="middle" font-size="9" fill="#555">'
            f'{html.escape(second)}</text></g></a>')
    parts.append("</svg>")
    return "\n".join(parts)


def _by_barycentre(row: list[str], neighbours: list[str], graph: nx.DiGraph) -> list[str]:
    """Order a row by the mean position of each node's neighbours in the adjacent row (unlinked nodes keep theirs)."""
    index = {n: i for i, n in enumerate(neighbours)}

    def key(n: str) -> tuple[float, str]:
        near = [index[m] for m in (*graph.predecessors(n), *graph.successors(n)) if m in index]
        return (sum(near) / len(near) if near else row.index(n) * len(neighbours) / max(1, len(row)), n)

    return sorted(row, key=key)
