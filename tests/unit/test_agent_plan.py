"""Plan parsing (Markdown and YAML) and the workspace's confinement. No graph, no LLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from kg.agent.errors import PlanError, WorkspaceError
from kg.agent.guards import Guard, Limits
from kg.agent.plan import load_plan, parse_markdown, parse_yaml
from kg.agent.summaries import Summary, parse_llm_summary
from kg.agent.tokens import Tokenizer
from kg.agent.tools import MalformedCall, parse_arguments
from kg.agent.workspace import Workspace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plans" / "calculator.md"


def test_markdown_plan_lists_files_descriptions_and_uses() -> None:
    plan = load_plan(EXAMPLE)
    assert plan.title == "Calculator" and plan.goal.startswith("A tiny calculator")
    assert [f.path for f in plan.files] == ["calc/ops.py", "calc/parser.py", "calc/cli.py", "calc/__init__.py"]
    by_path = {f.path: f for f in plan.files}
    assert by_path["calc/parser.py"].uses == ("calc/ops.py",)  # a planned path mentioned in the description
    assert by_path["calc/__init__.py"].uses == ("calc/ops.py", "calc/parser.py")  # an explicit `uses:` list
    assert by_path["calc/ops.py"].description.startswith("add, sub, mul and div")
    assert plan.plan_id("ws-a") == load_plan(EXAMPLE).plan_id("ws-a") != plan.plan_id("ws-b")


def test_yaml_plan() -> None:
    plan = parse_yaml("name: svc\ngoal: serve\nfiles:\n  - path: svc/app.py\n    description: the app\n"
                      "    uses: [svc/db.py]\n  - svc/db.py\n")
    assert plan.title == "svc" and [(f.path, f.uses) for f in plan.files] == [("svc/app.py", ("svc/db.py",)),
                                                                               ("svc/db.py", ())]


@pytest.mark.parametrize("text, message", [
    ("# x\nno files here\n", "names no files"),
    ("- `../up.py` — escapes\n", "without `..`"),
    ("- `/etc/passwd.py` — absolute\n", "relative"),
    ("- `a.py` — one\n- `a.py` — twice\n", "twice"),
    ("- `a.py` — uses a ghost (uses: b.py)\n", "does not name"),
])
def test_bad_plans_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        parse_markdown(text)


def test_bad_yaml_plan() -> None:
    with pytest.raises(PlanError, match="files"):
        parse_yaml("name: x\n")


def test_workspace_confinement(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "outside").mkdir()
    (ws.root / "out").symlink_to(tmp_path / "outside")
    (ws.root / "escape.py").symlink_to(tmp_path / "outside" / "target.py")
    for bad, why in [("../x.py", r"\.\."), ("/tmp/x.py", "absolute"), ("C:/x.py", "absolute"), ("", "empty"),
                     ("out/x.py", "symlink"), ("escape.py", "symlink"), ("a\x00b", "NUL"), (".", "workspace itself")]:
        with pytest.raises(WorkspaceError, match=why):
            ws.write(bad, "x")
    assert list((tmp_path / "outside").iterdir()) == []
    assert ws.write("./pkg/mod.py", "x = 1\n") == "pkg/mod.py"
    assert ws.read("pkg/mod.py") == ("pkg/mod.py", "x = 1\n", False)
    assert ws.read("pkg/mod.py", limit=3) == ("pkg/mod.py", "x =", True)
    with pytest.raises(WorkspaceError, match="cannot create the folder"):
        ws.write("pkg/mod.py/inner.py", "x")
    with pytest.raises(WorkspaceError, match="not valid text"):
        ws.write("pkg/new.py", "\ud800")
    assert not (ws.root / "pkg" / "new.py").exists()  # nothing half-written that would count as done
    with pytest.raises(WorkspaceError, match="is a file"):
        Workspace(ws.root / "pkg" / "mod.py")


def test_guard_loop_errors_and_stall() -> None:
    guard = Guard(Limits(max_repeats=3, max_errors=3, stall_seconds=1.0))
    assert guard.after_turn("search a", True, False, 0.1, 0.0) is None
    assert guard.after_turn("search a", True, False, 0.1, 0.0) is None
    assert guard.after_turn("search a", True, False, 0.1, 0.0)[0] == "aborted"
    guard = Guard(Limits(max_errors=2))
    guard.after_turn("x 1", False, False, 0.1, 0.0)
    assert "failed or malformed" in guard.after_turn("x 2", False, False, 0.1, 0.0)[1]
    guard = Guard(Limits(stall_seconds=1.0))
    assert guard.after_turn("a", True, False, 10.0, 9.5) is None  # 9.5 s of it was the LLM
    assert guard.after_turn("b", True, False, 10.0, 9.0) is not None  # 0.5 + 1.0 agent seconds
    guard = Guard(Limits(max_iterations=1))
    guard.after_turn("a", True, True, 0.1, 0.0)
    assert guard.before_turn()[0] == "max_iterations"


def test_tool_arguments_are_checked() -> None:
    assert parse_arguments("read_file", '{"path": "a.py", "extra": 1}') == {"path": "a.py"}
    assert parse_arguments("record_decision", '{"text": "t", "rationale": null}') == {"text": "t"}
    assert parse_arguments("impact", '{"target": "x", "depth": 5, "limit": 2.5}') == {"target": "x", "depth": 5,
                                                                                      "limit": 2.5}
    for name, raw, message in [("nope", "{}", "unknown tool"), ("read_file", "{", "not valid JSON"),
                               ("read_file", "[]", "JSON object"), ("write_file", '{"path": "a"}', "needs content"),
                               ("record_decision", '{"text": "t", "paths": "a.py"}', "list of strings"),
                               ("record_decision", '{"text": "t", "confidence": "high"}', "a finite number"),
                               ("impact", '{"target": "x", "depth": NaN}', "depth must be a finite number"),
                               ("impact", '{"target": "x", "limit": Infinity}', "limit must be a finite number")]:
        with pytest.raises(MalformedCall, match=message):
            parse_arguments(name, raw)


def test_summary_levels_and_llm_summary_parsing() -> None:
    s = Summary("calc/ops.py", "Arithmetic.", ["def add(a, b)", "class Calc"], ["math"], "called from 2 files")
    assert s.render("full").splitlines()[0] == "### `calc/ops.py`"
    assert s.render("oneline") == "- `calc/ops.py`: Arithmetic. — add, Calc"
    assert s.render("names") == "- `calc/ops.py`"
    parsed = parse_llm_summary("a.py", 'Sure! {"responsibility": "Adds.", "interface": ["add"], "notes": ""}')
    assert parsed is not None and parsed.responsibility == "Adds." and parsed.kind == "llm"
    assert parse_llm_summary("a.py", "no json here") is None


def test_offline_tokenizer() -> None:
    tok = Tokenizer()
    assert tok.count("hello world") == 2 and tok.count("") == 0
    assert tok.cut("one two three", 2) == ("one two", True)
    assert tok.count("<|endoftext|>") > 1  # special tokens in user text are plain text


def test_tool_arguments_with_raw_newlines_in_strings_parse() -> None:
    """Small local models write file content with literal newlines inside the JSON string; strict JSON refuses it."""
    args = parse_arguments("write_file", '{"path": "a.py", "content": "def f():\n\treturn 1\n"}')
    assert args == {"path": "a.py", "content": "def f():\n\treturn 1\n"}
    with pytest.raises(MalformedCall, match="not valid JSON"):
        parse_arguments("write_file", '{"path": "a.py", "content": "unterminated')
