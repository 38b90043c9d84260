"""A model that tries to plant code kg or git would later run: every attempt is refused in one line the model sees,
the workspace's git config stays as it was, and `kg changes` on the workspace runs nothing.

LLM used: agent.testing.ReplayServer (recorded tool calls replayed through the real `openai` client).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from kg.agent.guards import Limits
from kg.agent.testing import ReplayServer
from kg.agent.tools import Toolbox
from kg.agent.workspace import Workspace

from kg.navigate.changes import changes
from kg.store import Store
from tests.git_plants import sh
from tests.integration.test_agent_helpers import GREET, MAIN, run_plan, turns, write


def test_the_agent_cannot_plant_what_git_or_kg_would_run(store: Store, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    sh(ws, "init", "-q")
    (ws / "innocent").symlink_to(".git", target_is_directory=True)
    config_before = (ws / ".git" / "config").read_text()
    marker = tmp_path / "MARKER"
    planted = f"[core]\n\tfsmonitor = touch {marker}\n"
    hook = f"#!/bin/sh\ntouch {marker}\n"
    attempts = [
        write(".git/config", planted), write(".git/hooks/post-index-change", hook), write(".GIT/config", planted),
        write("./.git/config", planted), write(".git./config", planted), write("innocent/config", planted),
        write(".agent/kg.yaml", "neo4j:\n  uri: bolt://attacker.invalid:7687\n"),
        write(".gitattributes", "* filter=evil\n"), write(".gitmodules", "[submodule \"x\"]\n\tupdate = !sh\n"),
    ]
    with ReplayServer([*attempts, write("hello/greet.py", GREET), write("hello/main.py", MAIN)]) as server:
        outcome = run_plan(store, ws, server, limits=Limits(max_errors=20))
    results = [t["result"] for t in turns(store, outcome.run_id)]
    refused = results[:len(attempts)]
    assert all(r.startswith("refused:") and "\n" not in r for r in refused), "\n".join(r[:150] for r in refused)
    assert outcome.status == "completed", outcome.reason
    assert (ws / ".git" / "config").read_text() == config_before
    assert not (ws / ".git" / "hooks" / "post-index-change").exists() and not (ws / ".GIT").exists()
    for name in (".agent", ".gitattributes", ".gitmodules"):
        assert not (ws / name).exists(), name

    sh(ws, "add", "hello")
    sh(ws, "commit", "-q", "-m", "agent's work")
    (ws / "hello" / "greet.py").write_text(GREET.replace("hello", "hi"))
    report = changes(store, ws, repo="ws-test")
    assert [c["qname"] for c in report.changed] == ["hello.greet.greet"]
    subprocess.run(["git", "-C", str(ws), "status"], capture_output=True, check=True)  # plain git too: nothing armed
    assert not marker.exists()


def test_write_file_of_30_mb_is_refused_up_front_with_the_right_reason(store: Store, tmp_path: Path) -> None:
    """The tool call as the loop executes it (no model needed): refused before any write or ingest."""
    ingested: list[str] = []
    tools = Toolbox(store, Workspace(tmp_path / "ws"), "ws-big", lambda **_: "d1",
                    lambda path: ingested.append(path) or "ingested")
    result = tools.execute("write_file", {"path": "big/huge.py", "content": "x = 1\n" * 5_000_000})
    assert not result.ok and result.text.startswith("refused:") and "\n" not in result.text
    assert "30.0 MB" in result.text and "at most 1 MB" in result.text
    assert ingested == [] and not (tmp_path / "ws" / "big").exists()


def test_a_file_whose_name_is_not_text_does_not_stop_a_run(store: Store, tmp_path: Path) -> None:
    """Attack report #10: a workspace file whose name is not UTF-8 (an agent made one through a JSON `\\udcff`, which
    the workspace now refuses; a person can still make one) failed the run's ingest, so the run and every resume
    stopped at once. Now the walk skips that file with a reason and the run completes."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / os.fsdecode(b"bad\xffname.py")).write_text("x = 1\n")
    with ReplayServer([write("hello/greet.py", GREET), write("hello/main.py", MAIN)]) as server:
        outcome = run_plan(store, ws, server)
    assert outcome.status == "completed", outcome.reason
    assert (ws / os.fsdecode(b"bad\xffname.py")).exists()  # left as it was, just not in the graph


def test_a_write_that_fills_the_disk_keeps_the_old_content(tmp_path: Path) -> None:
    """A rewrite on a full disk wrote in place: the file was cut at 4 KB and its old version lost. Now the new
    content goes to a file beside it that replaces the old one only when complete."""
    from kg.agent.errors import WorkspaceError

    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        workspace = Workspace(mount / "ws")
        old = "def f():\n    return 1\n" * 200
        workspace.write("pkg/mod.py", old)
        ballast = mount / "ballast"
        with ballast.open("wb", buffering=0) as f:  # fill what is left
            try:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
            except OSError:
                pass
        with pytest.raises(WorkspaceError, match="disk is full.*its old content is kept"):
            workspace.write("pkg/mod.py", "def g():\n    return 2\n" * 20_000)
        assert (mount / "ws" / "pkg" / "mod.py").read_text() == old
        assert sorted(p.name for p in (mount / "ws" / "pkg").iterdir()) == ["mod.py"]  # no temporary left
        ballast.unlink()
        workspace.write("pkg/mod.py", "x = 1\n")
        assert (mount / "ws" / "pkg" / "mod.py").read_text() == "x = 1\n"
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
