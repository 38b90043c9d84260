"""What a one-shot navigation answer imports before it answers: only what it uses. Each import is CPU every `kg
callers` pays (~0.15 s of a ~0.2 s answer was imports), so modules only other commands need are imported where
they are used. A fresh interpreter per check: the test process has imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Who needs them: the neo4j driver (a NEO4J_URI, long-lived processes), networkx (cycles), the file readers of dead
# code (tokenize via value_uses), every query file read (`kg query --list`), git (`kg changes`), the server launcher.
NOT_FOR_AN_ANSWER = ["neo4j", "networkx", "kg.navigate.value_uses", "kg.navigate.name_dispatch", "kg.navigate.catalog",
                     "kg.source_files",
                     "kg.navigate.changes", "kg.git", "kg.server.local", "kg.store", "subprocess"]


@pytest.fixture(scope="module")
def loaded() -> set[str]:
    code = ("import sys, json\n"
            "from kg.cli import cli\n"
            "cli.get_command(None, 'callers')\n"  # what running `kg callers` loads before it reads the graph
            "print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out))


@pytest.mark.parametrize("module", NOT_FOR_AN_ANSWER)
def test_the_callers_command_does_not_import_what_only_other_commands_use(loaded: set[str], module: str) -> None:
    assert "kg.navigate.answers" in loaded  # the command itself was loaded
    assert module not in loaded, f"{module} is imported by `kg callers` before it answers"
