"""In the folder of a repository whose ingest did not finish, a name that repository does not hold (yet) is not
answered from other repositories as if it were complete: callers, callees, impact, path and tests-for say that the
folder's repository was not completely ingested and how to finish it (newuser4 #2: "'Flask.make_response' is in 7
repositories …: pass --repo", not a word of the interruption). A path:line held by several repositories lists each
one's symbol at that line, not the module at line 1. Real Neo4j, real tinyshop copies, the CLI and a real MCP stdio
session."""

from __future__ import annotations

import json
import shutil
import sys
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from kg.ingest.pipeline import Ingestor
from kg.ingest.writer import GraphWriter
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kg.cli import cli
from kg.errors import InputError
from kg.navigate import answers
from kg.navigate.targets import AmbiguousName, resolve
from kg.settings import Settings
from kg.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
TINYSHOP = REPO_ROOT / "examples" / "tinyshop"
NAV = REPO_ROOT / "tests" / "fixtures" / "navigate"


@pytest.fixture(scope="module")
def folders(session_store: Store, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """tinyshop as `shop` and `shop2`, the navigation fixture as `nav`, and `cut`: a tinyshop copy whose first ingest
    died before its first file (a Repo marked as being written, nothing else)."""
    base = tmp_path_factory.mktemp("unfinished")
    session_store.write("graph_wipe")
    shutil.copytree(TINYSHOP, base / "shop2")
    shutil.copytree(TINYSHOP, base / "cut")
    Ingestor(session_store, TINYSHOP, repo="shop").run()
    Ingestor(session_store, base / "shop2", repo="shop2").run()
    Ingestor(session_store, NAV, repo="nav").run()
    GraphWriter(session_store, "cut").put_repo(str(base / "cut"), "target", writing=True)
    return {"cut": base / "cut", "base": base}


NOTE = "repository cut was not completely ingested (interrupted: the ingest started at "


def status_json(settings: Settings, *args: str) -> dict:
    """`kg status ARGS --json` against the test server, parsed."""
    env = {"NEO4J_URI": settings.uri, "NEO4J_PASSWORD": settings.password}
    result = CliRunner().invoke(cli, ["status", *args, "--json"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _says_cut_is_unfinished(message: str, text: str) -> None:
    first = message.splitlines()[0]
    assert first.startswith(f"'{text}' is not in cut (the current folder's repository): {NOTE}"), message
    assert "run `kg ingest " in first and "--repo cut` again" in first and first.endswith("pass --repo"), message


@pytest.mark.parametrize("text", ["Cart.checkout", "shop/cart.py:20", "app.core.helper"])
def test_every_question_from_the_unfinished_folder_says_so(session_store: Store, folders: dict[str, Path],
                                                          monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """`Cart.checkout` and `shop/cart.py:20` are in shop and shop2 (was: "is in 2 repositories: pass --repo"),
    `app.core.helper` only in nav (was: nav's answer, with "is not in cut … this answer is about nav")."""
    monkeypatch.chdir(folders["cut"] / "shop")
    graph = session_store
    for ask in (lambda: answers.callers(graph, text), lambda: answers.callees(graph, text),
                lambda: answers.impact(graph, [text]), lambda: answers.tests_for(graph, [text]),
                lambda: answers.call_path(graph, text, text), lambda: resolve(graph, text)):
        with pytest.raises(InputError) as error:
            ask()
        assert not isinstance(error.value, AmbiguousName)
        _says_cut_is_unfinished(str(error.value), text)
    # asked of another repository by name, it answers (with no note: that one is complete)
    other = "nav" if text.startswith("app.") else "shop2"
    answer = answers.callers(graph, text, other)
    assert answer.target.repo == other and not [n for n in answer.notes if "not completely" in n]


def test_a_file_nothing_holds_says_the_folders_repository_is_unfinished(session_store: Store,
                                                                        folders: dict[str, Path],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folders["cut"])
    with pytest.raises(InputError) as error:
        answers.callers(session_store, "shop/nowhere.py:3")
    assert str(error.value).startswith("no file 'shop/nowhere.py' in the graph: check the path")
    assert f"; {NOTE}" in str(error.value)
    with pytest.raises(InputError, match="no repository named 'bogus' in the graph"):
        resolve(session_store, "shop/cart.py:20", "bogus")  # was "no file 'shop/cart.py' in the graph of 'bogus'"


def test_a_path_line_in_several_repositories_lists_the_symbol_at_that_line(session_store: Store,
                                                                           folders: dict[str, Path],
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside every repository: the candidates were each file's module at line 1 (`shop.cart (module,
    shop/cart.py:1) in shop`), not what is at line 20."""
    monkeypatch.chdir(folders["base"])
    with pytest.raises(AmbiguousName) as error:
        resolve(session_store, "shop/cart.py:20")
    lines = str(error.value).splitlines()
    assert lines[0] == "'shop/cart.py:20' is in 2 repositories (shop, shop2): pass --repo with one of them"
    assert lines[1:] == ["  shop.cart.Cart.checkout (method, shop/cart.py:16) in shop",
                         "  shop.cart.Cart.checkout (method, shop/cart.py:16) in shop2"]
    assert resolve(session_store, "shop/cart.py:20", "shop2").qname == "shop.cart.Cart.checkout"


def test_the_cli_and_mcp_say_it_in_one_line(session_store: Store, folders: dict[str, Path],
                                           graph_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    monkeypatch.chdir(folders["cut"])
    runner = CliRunner()
    for args in (["callers", "Cart.checkout"], ["callees", "shop/cart.py:20"], ["impact", "Cart.checkout"],
                 ["path", "Cart.checkout", "Order.total_cents"], ["tests-for", "Cart.checkout"]):
        result = runner.invoke(cli, args, env=env, catch_exceptions=False)
        assert result.exit_code == 1, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: '") and NOTE in lines[0], (args, result.output)

    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(folders["cut"]), env=env)
    said: dict[str, Any] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            said["callers"] = await client.call_tool("callers", {"symbol": "Cart.checkout"})
            said["path"] = await client.call_tool("path", {"source": "Cart.checkout", "target": "Order.total_cents"})
            said["other"] = await client.call_tool("callers", {"symbol": "Cart.checkout", "repo": "shop"})

    anyio.run(session)
    for tool in ("callers", "path"):
        text = "\n".join(part.text for part in said[tool].content if getattr(part, "text", None))
        assert said[tool].is_error and NOTE in text and "--repo cut` again" in text, text
        assert text.endswith("pass the `repo` argument"), text  # the MCP argument, not the CLI flag
    assert not said["other"].is_error


def test_status_of_one_repository(session_store: Store, folders: dict[str, Path], graph_settings: Settings) -> None:
    """newuser4: `kg status` counted the whole graph (nine flask copies); `--repo` counts one repository's nodes and
    the relationships leaving them, says when its ingest did not finish, and refuses a name the graph lacks."""
    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    runner = CliRunner()

    status = partial(status_json, graph_settings)

    def counts(rows: list[dict], key: str) -> dict[str, int]:
        return {r[key]: r["count"] for r in rows}

    whole, shop = status(), status("--repo", "shop")
    truth = session_store.read_text(
        "MATCH (m:Module {repo: 'shop'}) WITH count(m) AS modules MATCH (:Symbol {repo: 'shop'})-[c:CALLS]->() "
        "RETURN modules, count(c) AS calls")[0]
    nodes, edges = counts(shop["nodes"], "label"), counts(shop["relationships"], "type")
    assert shop["repo"] == "shop" and nodes["Module"] == truth["modules"] and nodes["Repo"] == 1
    assert edges["CALLS"] >= truth["calls"] > 0 and edges["CONTAINS"] >= truth["modules"]
    assert counts(whole["nodes"], "label")["Module"] == 2 * truth["modules"] + counts(
        status("--repo", "nav")["nodes"], "label")["Module"]  # shop, shop2 (the same files) and nav
    assert shop["notes"] == []
    cut = status("--repo", "cut")
    assert counts(cut["nodes"], "label") == {"Repo": 1} and cut["notes"][0].startswith(NOTE)
    text = runner.invoke(cli, ["status", "--repo", "cut"], env=env, catch_exceptions=False)
    assert "repository cut in the graph" in text.output and f"note: {NOTE}" in " ".join(text.output.split())
    unknown = runner.invoke(cli, ["status", "--repo", "bogus"], env=env, catch_exceptions=False)
    assert unknown.exit_code == 1 and unknown.output.startswith("error: no repository named 'bogus' in the graph")


def test_from_a_folder_in_no_repository_the_answer_says_whose_it_is(session_store: Store, folders: dict[str, Path],
                                                                    graph_settings: Settings,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser5 #1: from an empty folder (or a clone whose first ingest died before writing anything) `kg callers`
    answered from another repository with no note, while inside an ingested repository the note was there. A name
    in one repository is answered with a line saying which one; a name in several still asks for --repo. The CLI,
    the library, `kg changes` and MCP say the same."""
    empty = folders["base"] / "empty"
    empty.mkdir(exist_ok=True)
    monkeypatch.chdir(empty)
    said = f"{empty.resolve()} is not in an ingested repository (`kg ingest {empty.resolve()}` adds it): " \
           "this answer is about nav"
    graph = session_store
    for answer in (answers.callers(graph, "app.core.helper"), answers.callees(graph, "app.core.helper"),
                   answers.impact(graph, ["app.core.helper"]), answers.tests_for(graph, ["app.core.helper"]),
                   answers.call_path(graph, "app.core.helper", "app.core.helper"),
                   answers.callers(graph, "app/core.py:9"), answers.impact(graph, ["app/core.py"])):
        assert answer.target is None or answer.target.repo == "nav"
        assert answer.notes.count(said) == 1, answer.notes
    with pytest.raises(AmbiguousName, match=r"^'Cart.checkout' is in 2 repositories \(shop, shop2\): pass --repo"):
        answers.callers(graph, "Cart.checkout")
    assert not [n for n in answers.callers(graph, "app.core.helper", "nav").notes if "ingested repository" in n]

    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    runner = CliRunner()
    shown = runner.invoke(cli, ["callers", "app.core.helper"], env=env, catch_exceptions=False)
    assert shown.exit_code == 0 and said in " ".join(shown.output.split()), shown.output
    changed = runner.invoke(cli, ["changes"], env=env, catch_exceptions=False)
    assert changed.exit_code == 1 and changed.output.startswith(
        f"error: which repository to diff? {empty.resolve()} is not in an ingested repository (`kg ingest "), \
        changed.output  # was "none or several are ingested there", leaving the user to guess which

    server = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp"], cwd=str(empty), env=env)
    replies: dict[str, Any] = {}

    async def session() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            replies["callers"] = await client.call_tool("callers", {"symbol": "app.core.helper"})
            replies["several"] = await client.call_tool("callers", {"symbol": "Cart.checkout"})

    anyio.run(session)
    text = "\n".join(part.text for part in replies["callers"].content if getattr(part, "text", None))
    assert not replies["callers"].is_error and said in " ".join(text.split()), text
    several = "\n".join(part.text for part in replies["several"].content if getattr(part, "text", None))
    assert replies["several"].is_error and "is in 2 repositories (shop, shop2)" in several, several


def test_status_describes_the_current_folders_repository(session_store: Store, folders: dict[str, Path],
                                                         graph_settings: Settings,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser5 #6: `kg status` inside a repository counted the whole graph (the demo's Plans and Turns, three
    repositories, none named) and said nothing of the folder. Now it counts the folder's repository, as `--repo`
    does (the whole graph with --all), and from a folder in no repository says so over the whole graph's counts,
    naming the repositories. The unfinished note is said once (newuser5 saw it twice)."""
    env = {"NEO4J_URI": graph_settings.uri, "NEO4J_PASSWORD": graph_settings.password}
    runner = CliRunner()

    status = partial(status_json, graph_settings)

    monkeypatch.chdir(NAV / "app")
    here, named, whole = status(), status("--repo", "nav"), status("--all")
    assert here["repo"] == "nav" and here["nodes"] == named["nodes"] and here["relationships"] == named["relationships"]
    assert whole["repo"] is None and whole["nodes"] != here["nodes"] and here["notes"] == []
    assert sorted(r["repo"] for r in whole["repositories"]) == ["cut", "nav", "shop", "shop2"]
    assert [r["unfinished"] for r in whole["repositories"] if r["repo"] == "cut"] == [True]
    text = runner.invoke(cli, ["status"], env=env, catch_exceptions=False).output
    assert "repository nav in the graph" in text and "`kg status --all` counts them all" in " ".join(text.split())

    monkeypatch.chdir(folders["cut"])
    shown = runner.invoke(cli, ["status"], env=env, catch_exceptions=False)
    assert "repository cut in the graph" in shown.output
    assert " ".join(shown.output.split()).count("was not completely ingested") == 1, shown.output

    empty = folders["base"] / "empty"
    empty.mkdir(exist_ok=True)
    monkeypatch.chdir(empty)
    outside = status()
    assert outside["repo"] is None and outside["nodes"] == whole["nodes"]
    assert outside["notes"] == [f"{empty.resolve()} is not in an ingested repository (`kg ingest {empty.resolve()}` "
                                "adds it): these are the whole graph's counts"]
    listed = " ".join(runner.invoke(cli, ["status"], env=env, catch_exceptions=False).output.split())
    assert "repositories: cut (0 modules, unfinished), nav (" in listed, listed
    refused = runner.invoke(cli, ["status", "--all", "--repo", "nav"], env=env, catch_exceptions=False)
    assert refused.exit_code == 1 and refused.output.startswith("error: --repo and --all ask for different counts")
