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


# What only other kinds of change need: the JavaScript and Go walks and resolvers (a Python-only project or edit),
# the Markdown parser (an edit that touched no document), importlib.metadata (kg.installed reads the parsing
# distributions' versions from their folders' names).
NOT_FOR_A_PYTHON_UPDATE = ["kg.ingest.languages.javascript.extract", "kg.ingest.languages.javascript.resolve",
                           "kg.ingest.languages.go.extract", "kg.ingest.languages.go.resolve", "markdown_it",
                           "importlib.metadata"]


@pytest.fixture(scope="module")
def loaded_by_an_update() -> set[str]:
    code = ("import sys, json\n"
            "from kg.cli import cli\n"
            "cli.get_command(None, 'ingest')\n"
            "from kg.ingest.cache import parser_fingerprint\n"
            "from kg.ingest.languages import language_for\n"
            "parser_fingerprint()\n"  # every ingest asks for it
            "language_for('app.py').parse('app.py', 'app', b'def f():\\n    g()\\n')\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out))


@pytest.mark.parametrize("module", NOT_FOR_A_PYTHON_UPDATE)
def test_updating_a_python_file_does_not_import_what_other_kinds_of_file_need(loaded_by_an_update: set[str],
                                                                              module: str) -> None:
    assert "kg.ingest.pipeline" in loaded_by_an_update and "kg.ingest.languages.python.extract" in loaded_by_an_update
    assert module not in loaded_by_an_update, f"{module} is imported by a Python-only `kg ingest`"


def test_installed_versions_match_importlib_metadata() -> None:
    """The versions kg.installed reads from folder names are the ones importlib.metadata gives (the parse cache's
    fingerprint depends on them)."""
    from importlib import metadata

    from kg.ingest.cache import PARSING_DISTRIBUTIONS

    from kg import installed

    for name in (*PARSING_DISTRIBUTIONS, "kg", "neo4j"):
        assert installed.version(name) == metadata.version(name), name
    assert installed.version("no-such-distribution-here") is None


def test_help_lists_every_command_without_importing_the_llm_client() -> None:
    """`kg --help` loads each command for its short help; the agent's commands imported `openai` at load (~0.8 s of
    a 1.3 s help). It is imported when a client is made."""
    code = ("import sys, json, contextlib, io\n"
            "from kg.cli import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()) as shown:\n"
            "    try:\n"
            "        cli.main(['--help'], standalone_mode=False)\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(json.dumps({'help': shown.getvalue(), 'modules': sorted(sys.modules)}))\n")
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert "agent" in out["help"] and "kg.agent.llm" in out["modules"]
    assert "openai" not in out["modules"]
