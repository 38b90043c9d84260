"""Imports flow one way: agent → ingest → kg → queries (installed as kg.agent, kg.ingest, kg and kg.queries). kg's
core never imports ingest or agent; ingest never talks to neo4j directly; queries imports nothing of kg's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {  # folder → the layers (or libraries) its code must not import
    "kg": {"ingest", "agent", "tree_sitter"},
    "ingest": {"agent", "neo4j"},
    "queries": {"kg", "ingest", "agent", "neo4j"},
}
_LAYERS = {"kg.ingest": "ingest", "kg.agent": "agent", "kg.queries": "queries"}


def _layer(module: str) -> str:
    """`kg.ingest.walk` → `ingest`, `kg.store` → `kg`, `neo4j.exceptions` → `neo4j`."""
    for prefix, layer in _LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return module.split(".")[0]


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {_layer(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(_layer(node.module))
            if node.module == "kg":  # `from kg import queries`
                names |= {_LAYERS[f"kg.{a.name}"] for a in node.names if f"kg.{a.name}" in _LAYERS}
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_flow_one_way(package: str) -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(imported_top_levels(p) & FORBIDDEN[package])
                 for p in (ROOT / package).rglob("*.py")}
    assert {p: names for p, names in offenders.items() if names} == {}


def test_cypher_lives_in_query_files() -> None:
    """No Cypher keywords in Python string literals outside tests (queries/ holds every statement)."""
    keywords = ("MATCH (", "MERGE (", "CREATE (", "DETACH DELETE", "UNWIND $")
    found = []
    for package in ("kg", "ingest", "agent"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                    if any(k in node.value for k in keywords):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
