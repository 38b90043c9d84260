"""The agent's workspace on real files: control files refused however they are spelled or reached, links never
written through, oversized content refused before anything is touched. No graph or model is involved."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from kg.agent.errors import PlanError, WorkspaceError
from kg.agent.plan import check_path
from kg.agent.workspace import MAX_WRITE_BYTES, Workspace

CONTROL = [".git/config", ".git/hooks/pre-commit", "./.git/config", ".git/", ".git", ".GIT/config", ".Git/HEAD",
           ".git./config", ".git /config", ".g\u200cit/config", ".\u200dgit/config", "\uff0e\uff47\uff49\uff54/config",
           "GIT~1/config", ".git::$INDEX_ALLOCATION/config", "vendor/.git/config", ".kg/neo4j/password",
           ".kg/cache/x.sqlite", ".agent/kg.yaml", ".AGENT/kg.yaml", ".gitattributes", "pkg/.gitattributes",
           ".GitAttributes", ".gitmodules", ".lfsconfig", ".gitconfig", ".envrc", ".envrc.",
           # attack report #17/#9: 8.3 short names of every control file, Mercurial's folder, kg's memory folder
           "GITATT~1", "pkg/gitatt~2", "GITCON~1", "GITMOD~1", "GI7EBA~1", "ENVRC~1", "LFSCON~1", "KG~1/neo4j/x",
           "AGENT-~1/calc/ops.py.md", ".hg/hgrc", ".HG/hgrc", "HG~1/hgrc", ".agent-memory/calc/ops.py.md",
           ".Agent-Memory/index.md"]


@pytest.mark.parametrize("path", CONTROL)
def test_control_files_are_refused_in_one_line_and_nothing_is_created(tmp_path: Path, path: str) -> None:
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(WorkspaceError) as refused:
        ws.write(path, "[core]\n\tfsmonitor = touch /tmp/kg-pwned\n")
    message = str(refused.value)
    assert "\n" not in message and "refused" in message
    assert list((tmp_path / "ws").iterdir()) == []


@pytest.mark.parametrize("path", CONTROL)
def test_plans_cannot_name_control_files(path: str) -> None:
    with pytest.raises(PlanError, match="control file"):
        check_path(path)


@pytest.mark.parametrize("path", ["git.py", "pkg/gitx.py", ".github/workflows/ci.yml", "pkg/.gitignore",
                                  "kg/agent.py", "docs/.git-notes.md", "café/ünï.py",
                                  "docs/agent-memory.md", "hgweb/app.py", "pkg/gitatt.py", "tools/envrc~1.py"])
def test_ordinary_project_files_are_written(tmp_path: Path, path: str) -> None:
    ws = Workspace(tmp_path / "ws")
    assert ws.write(path, "x = 1\n") == path
    assert (tmp_path / "ws" / path).read_text() == "x = 1\n"


def test_a_symlink_to_a_control_folder_or_file_is_not_a_way_in(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / ".git").mkdir()
    (tmp_path / "ws" / ".git" / "config").write_text("[core]\n")
    (tmp_path / "ws" / "innocent").symlink_to(".git", target_is_directory=True)
    (tmp_path / "ws" / "settings.cfg").symlink_to(".git/config")
    for path in ("innocent/config", "innocent/hooks/post-index-change", "settings.cfg"):
        with pytest.raises(WorkspaceError, match="symlink to a control file"):
            ws.write(path, "[core]\n\tfsmonitor = touch /tmp/kg-pwned\n")
    assert (tmp_path / "ws" / ".git" / "config").read_text() == "[core]\n"
    assert not (tmp_path / "ws" / ".git" / "hooks").exists()


def test_a_symlink_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    outside = tmp_path / "outside.py"
    outside.write_text("kept\n")
    (tmp_path / "ws" / "out.py").symlink_to(outside)
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        ws.write("out.py", "x = 1\n")
    assert outside.read_text() == "kept\n"


def test_a_hard_link_to_a_file_outside_is_never_written_through(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    outside = tmp_path / "bashrc"
    outside.write_text("kept\n")
    os.link(outside, tmp_path / "ws" / "linked.py")
    with pytest.raises(WorkspaceError, match="hard-linked"):
        ws.write("linked.py", "x = 1\n")
    assert outside.read_text() == "kept\n"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    os.mkfifo(tmp_path / "ws" / "pipe.py")
    reader = threading.Thread(target=lambda: open(tmp_path / "ws" / "pipe.py", "rb").read(), daemon=True)
    reader.start()  # with a reader waiting, opening for write would succeed: the check is on what was opened
    with pytest.raises(WorkspaceError, match="not a regular file|cannot write"):
        ws.write("pipe.py", "x = 1\n")


def test_content_over_the_cap_is_refused_up_front_with_the_reason(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / "big.py").write_text("kept = 1\n")
    with pytest.raises(WorkspaceError) as refused:
        ws.write("big.py", "x" * 30_000_000)
    assert "30.0 MB" in str(refused.value) and f"at most {MAX_WRITE_BYTES / 1e6:g} MB" in str(refused.value)
    with pytest.raises(WorkspaceError, match="MB"):  # multi-byte characters count as bytes
        ws.write("wide.py", "é" * (MAX_WRITE_BYTES // 2 + 1))
    assert (tmp_path / "ws" / "big.py").read_text() == "kept = 1\n" and not (tmp_path / "ws" / "wide.py").exists()
    assert ws.write("ok.py", "x" * (MAX_WRITE_BYTES - 1)) == "ok.py"


def test_reading_kgs_own_files_is_refused(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / ".kg" / "neo4j").mkdir(parents=True)
    (tmp_path / "ws" / ".kg" / "neo4j" / "password").write_text("secret")
    with pytest.raises(WorkspaceError, match="kg's data folder"):
        ws.read(".kg/neo4j/password")
    assert not ws.exists(".kg/neo4j/password")


def test_deeply_nested_tool_arguments_are_a_malformed_call_not_a_crash() -> None:
    from kg.agent.tools import MalformedCall, parse_arguments

    with pytest.raises(MalformedCall, match="nest too deep"):
        parse_arguments("write_file", '{"path": ' + "[" * 5000 + "]" * 5000 + "}")


def test_a_path_that_is_not_text_is_refused_in_one_line(tmp_path: Path) -> None:
    """Attack report #10: JSON `"\\udcff"` decodes to a lone surrogate, which would make a file whose name is not
    UTF-8 (no graph, JSON answer or report can carry its name)."""
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(WorkspaceError, match=r"^path 'bad\\udcffname\.py' is not valid text") as refused:
        ws.write("bad\udcffname.py", "x = 1\n")
    assert "\n" not in str(refused.value) and list((tmp_path / "ws").iterdir()) == []
