"""kg's git calls run no program a repository names, and take revisions only as revisions.

Each plant (tests/git_plants.py) is a real repository whose config, hooks, attributes, includes, partial-clone remote
or embedded repository make a git read run a script that touches a marker. Every test first shows plain git fires
the plant (so it is armed), then runs kg's `changes` the three ways people and agents do: the library, the CLI on a
terminal (`kg changes`, where a pager would start), and MCP (`changes`, through a real stdio client) — and the
marker must never appear. The graph is the real test Neo4j.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from kg.ingest.pipeline import Ingestor
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.errors import InputError
from kg.git import commit, git
from kg.navigate.changes import changes, git_diff
from kg.settings import Settings
from kg.store import Store
from tests.git_plants import PLANTS, Plant, arm_check, on_tty, plant, sh

# The partial clone's blob is gone and kg will not fetch it: kg's answer is a one-line error, never the fetch.
NEEDS_FETCH = {"promisor_fetch"}


def kg_env(settings: Settings) -> dict[str, str]:
    return {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_PASSWORD": settings.password}


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_no_planted_program_runs_from_the_library_or_the_cli(store: Store, graph_settings: Settings, tmp_path: Path,
                                                             name: str) -> None:
    p = plant(name, tmp_path)
    Ingestor(store, p.root, repo=f"plant-{name}").run()
    assert arm_check(p), f"plain git did not fire the {name} plant: the test would prove nothing"

    if name in NEEDS_FETCH:
        with pytest.raises(InputError, match="git diff in .* failed"):
            changes(store, repo=f"plant-{name}")
    else:
        report = changes(store, repo=f"plant-{name}")
        assert [c["qname"] for c in report.changed] == ["app.price"]
    assert not p.marker.exists(), f"kg's git ran the {name} plant"

    code, shown = on_tty([sys.executable, "-m", "kg", "changes", "--repo", f"plant-{name}", "--json"],
                         env=kg_env(graph_settings))
    assert not p.marker.exists(), f"`kg changes` on a terminal ran the {name} plant"
    if name in NEEDS_FETCH:
        assert code == 1 and "Traceback" not in shown and "failed" in shown
    else:
        assert code == 0, shown
        assert [c["qname"] for c in json.loads(shown)["changed"]] == ["app.price"]


def test_no_planted_program_runs_through_mcp(store: Store, graph_settings: Settings, tmp_path: Path) -> None:
    plants: list[Plant] = []
    for name in sorted(PLANTS):
        p = plant(name, tmp_path)
        Ingestor(store, p.root, repo=f"plant-{name}").run()
        assert arm_check(p), name
        plants.append(p)
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], env=kg_env(graph_settings))
    answers: dict[str, object] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            for p in plants:
                answers[p.name] = await client.call_tool("changes", {"repo": f"plant-{p.name}"})

    anyio.run(session)
    assert [p.name for p in plants if p.marker.exists()] == []
    for p in plants:
        text = "\n".join(c.text for c in answers[p.name].content)
        if p.name in NEEDS_FETCH:
            assert answers[p.name].is_error and "failed" in text
        else:
            assert not answers[p.name].is_error and "app.price" in text, (p.name, text)


@pytest.fixture
def armed_repo(store: Store, tmp_path: Path) -> Plant:
    """A repository whose every program setting is armed, ingested as `armed`."""
    p = plant("external_diff", tmp_path)
    sh(p.root, "config", "diff.external", str(p.root.parent / "scripts" / "extdiff"))
    Ingestor(store, p.root, repo="armed").run()
    return p


@pytest.mark.parametrize("since", ["--output=OUT", "--ext-diff", "-p", "--no-index", "HEAD --output=OUT",
                                   "HEAD\n--output=OUT", ""])
def test_a_revision_that_is_an_option_is_refused_in_one_line(store: Store, armed_repo: Plant, since: str) -> None:
    out = armed_repo.root.parent / "written-by-git"
    since = since.replace("OUT", str(out))
    with pytest.raises(InputError) as refused:
        git_diff(armed_repo.root, since) if since else commit(armed_repo.root, since)
    assert "\n" not in str(refused.value) and "revision" in str(refused.value)
    assert not out.exists() and not armed_repo.marker.exists()


def test_revisions_that_name_commits_work_and_others_say_so(armed_repo: Plant) -> None:
    root = armed_repo.root
    head = sh(root, "rev-parse", "HEAD").stdout.strip()
    branch = sh(root, "branch", "--show-current").stdout.strip()
    assert commit(root, "HEAD") == head and commit(root, head[:8]) == head and commit(root, branch) == head
    sh(root, "tag", "v1")
    assert commit(root, "v1") == head
    with pytest.raises(InputError, match="names no commit"):
        commit(root, "HEAD~5")
    with pytest.raises(InputError, match="names no commit"):
        commit(root, "HEAD:app.py")  # a blob, not a commit
    assert git(root, "log", "--format=%H", revisions=(head,)).split() == [head]


def test_cli_and_mcp_refuse_option_revisions(store: Store, graph_settings: Settings, armed_repo: Plant) -> None:
    out = armed_repo.root.parent / "written-by-git"
    code, shown = on_tty([sys.executable, "-m", "kg", "changes", "--repo", "armed", f"--since=--output={out}"],
                         env=kg_env(graph_settings))
    assert code == 1 and len(shown.strip().splitlines()) == 1 and "is not a revision" in shown
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], env=kg_env(graph_settings))
    answers = []

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            for since in (f"--output={out}", "--ext-diff"):
                answers.append(await client.call_tool("changes", {"repo": "armed", "since": since}))

    anyio.run(session)
    assert all(a.is_error and "is not a revision" in a.content[0].text for a in answers)
    assert not out.exists() and not armed_repo.marker.exists()


def test_mcp_changes_runs_git_only_inside_the_ingested_root(store: Store, armed_repo: Plant, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(InputError, match="not inside armed's ingested root"):
        changes(store, elsewhere, repo="armed")
    assert changes(store, armed_repo.root / ".", repo="armed").changed


@pytest.mark.parametrize("sections", [
    ['[filter "' + "A" * 140_000 + '"]\n\tclean = cat\n'],  # one name over Linux's 128 KiB per variable
    [f'[filter "f{i:05d}{"B" * 300}"]\n\tclean = cat\n' for i in range(3000)],  # ~4 MB of names over 2 MB in all
])
def test_a_config_too_large_to_switch_off_is_a_one_line_error_everywhere(
        store: Store, graph_settings: Settings, armed_repo: Plant, sections: list[str]) -> None:
    """Attack report #12: git's overrides no longer fit in its environment (E2BIG); kg runs no git there and every
    git-using command says so in one line (before: an OSError traceback in `kg changes`, `kg decide`, MCP)."""
    root = armed_repo.root
    with (root / ".git" / "config").open("a") as config:
        config.writelines(sections)
    with pytest.raises(InputError) as refused:
        git(root, "status")
    assert "\n" not in str(refused.value) and "kg runs no git command there" in str(refused.value)
    assert len(str(refused.value)) < 400

    code, shown = on_tty([sys.executable, "-m", "kg", "changes", "--repo", "armed"], env=kg_env(graph_settings))
    assert code == 1 and "Traceback" not in shown and len(shown.strip().splitlines()) == 1, shown
    # `kg decide` asks git for the author only: without git it takes the login name and records the decision
    code, shown = on_tty([sys.executable, "-m", "kg", "decide", "price is in cents", "--about", "app.price",
                          "--repo", "armed", "--json"], env=kg_env(graph_settings), cwd=root)
    assert code == 0 and "Traceback" not in shown, shown
    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], env=kg_env(graph_settings))
    answers = []

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            answers.append(await client.call_tool("changes", {"repo": "armed"}))

    anyio.run(session)
    assert answers[0].is_error and "kg runs no git command there" in answers[0].content[0].text
    assert not armed_repo.marker.exists()


def test_a_config_that_includes_a_fifo_or_the_terminal_is_an_error_not_a_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An `include.path` to a FIFO blocks git's config reader for ever, and one to /dev/tty waits for the keyboard:
    kg's git runs in a session of its own (no terminal) and under a timeout (short here)."""
    import kg.git

    repo = tmp_path / "r"
    repo.mkdir()
    sh(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    sh(repo, "add", "a.py")
    sh(repo, "commit", "-qm", "one")
    os.mkfifo(tmp_path / "pipe")
    monkeypatch.setattr(kg.git, "GIT_TIMEOUT", 3.0)
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {tmp_path / 'pipe'}\n")
    with pytest.raises(InputError, match="did not finish in 3 s: check the repository's git config"):
        git(repo, "diff", "--name-only")
    (repo / ".git" / "config").write_text((repo / ".git" / "config").read_text().replace(str(tmp_path / "pipe"),
                                                                                         "/dev/tty"))
    with pytest.raises(InputError) as failed:  # no terminal to wait on: git fails at once ("bad config line")
        git(repo, "diff", "--name-only")
    assert "did not finish" not in str(failed.value)
