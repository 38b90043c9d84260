"""The repository walk on real trees built in tmp: ignore rules, skip reasons, symlinks, reading and hashing."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from kg.ingest.walk import (
    Skipped,
    SourceFile,
    code_matcher,
    decode,
    file_kind,
    read_text,
    walk,
)

from kg.source_files import content_hash


def make(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def paths(root: Path, *excludes: str) -> list[str]:
    return [source.path for source in walk(root, excludes)]


def reasons(root: Path) -> dict[str, str]:
    return {item.path: item.reason for item in walk(root).skipped}


# --- kinds ------------------------------------------------------------------------------------------------------


def test_file_kind_tells_code_documents_and_the_rest() -> None:
    is_code = code_matcher()
    assert file_kind("pkg/app.py", is_code) == "code"
    assert file_kind("web/index.ts", is_code) == "code"
    assert file_kind("README.md", is_code) == "document"
    assert file_kind("docker-compose.yml", is_code) == "document"
    assert file_kind("logo.png", is_code) is None
    assert file_kind("notes.txt", is_code) is None  # a random .txt is neither prose we know nor requirements


def test_file_kind_takes_the_code_decision_from_the_given_predicate() -> None:
    assert file_kind("lib.rs", lambda path: path.endswith(".rs")) == "code"
    assert file_kind("app.py", lambda path: False) is None


def test_code_matcher_falls_back_to_a_table_when_the_registry_cannot_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kg.ingest.languages", None)  # makes `from ingest.languages import ...` fail
    is_code = code_matcher()
    assert is_code("a/b.py") and is_code("x.go") and is_code("y.tsx")
    assert not is_code("README.md") and not is_code("image.png")


# --- ignore rules -----------------------------------------------------------------------------------------------


def test_root_and_nested_gitignore_with_negation(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.log.py\ngenerated/\nvendor/\n!vendor/keep.py\n",
            "app.py": "",
            "debug.log.py": "",
            "generated/models.py": "",
            "vendor/keep.py": "",  # git cannot re-include a file inside an ignored directory, neither do we
            "sub/.gitignore": "*.py\n!keep.py\n",
            "sub/drop.py": "",
            "sub/keep.py": "",
            "sub/deeper/drop_too.py": "",
            "sub/deeper/.gitignore": "!revived.py\n",
            "sub/deeper/revived.py": "",
            "other/also.py": "",  # sub/.gitignore applies to its own subtree only
        },
    )
    assert paths(tmp_path) == ["app.py", "other/also.py", "sub/deeper/revived.py", "sub/keep.py"]


def test_gitignore_anchored_patterns_are_relative_to_their_directory(tmp_path: Path) -> None:
    make(tmp_path, {"sub/.gitignore": "/top.py\n", "sub/top.py": "", "sub/inner/top.py": "", "top.py": ""})
    assert paths(tmp_path) == ["sub/inner/top.py", "top.py"]


def test_git_info_exclude_applies_below_gitignore(tmp_path: Path) -> None:
    make(
        tmp_path,
        {".git/info/exclude": "local_*.py\nscratch.py\n", ".gitignore": "!scratch.py\n"},
    )
    make(tmp_path, {"local_notes.py": "", "scratch.py": "", "main.py": "", ".git/hooks/pre-commit.py": ""})
    assert paths(tmp_path) == ["main.py", "scratch.py"]


def test_always_skipped_directories(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "node_modules/left-pad/index.js": "",
            "__pycache__/x.py": "",
            ".venv/lib/site.py": "",
            "venv/lib/site.py": "",
            "myenv/pyvenv.cfg": "home = /usr/bin\n",
            "myenv/lib/site.py": "",
            "widget.egg-info/PKG-INFO.py": "",
            ".kg/cache.py": "",
            ".tox/py311/x.py": "",
            ".hg/x.py": "",
            ".svn/x.py": "",
            "dist/widget.py": "",
            "build/lib/widget.py": "",
            "src/widget.py": "",
            "src/build_helpers.py": "",  # only a directory named build is skipped
        },
    )
    assert paths(tmp_path) == ["src/build_helpers.py", "src/widget.py"]
    assert walk(tmp_path).skipped == ()  # pruned trees are not "skipped files": nobody expects them


def test_exclude_globs_match_the_relative_path(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "docs/conf.py": "",
            "web/app.min.js": "var a=1;\n",
            "web/app.js": "",
            "tests/fixtures/case/x.py": "",
            "tests/test_x.py": "",
            "src/docs/inner.py": "",
        },
    )
    assert paths(tmp_path, "/docs/", "*.min.js", "tests/fixtures/**") == [
        "src/docs/inner.py",
        "tests/test_x.py",
        "web/app.js",
    ]
    assert paths(tmp_path, "docs/") == ["tests/fixtures/case/x.py", "tests/test_x.py", "web/app.js", "web/app.min.js"]


def test_unknown_files_are_silently_left_out(tmp_path: Path) -> None:
    make(tmp_path, {"logo.png": b"\x89PNG\r\n\x1a\n\0\0\0", "data.bin": b"\0" * 100, "main.py": "x = 1\n"})
    result = walk(tmp_path)
    assert [source.path for source in result] == ["main.py"]
    assert result.skipped == ()


# --- content checks ---------------------------------------------------------------------------------------------


def test_binary_file_with_a_code_extension_is_skipped(tmp_path: Path) -> None:
    make(
        tmp_path, {"blob.py": b"x = 1\n\0\0\0binary", "late_nul.py": b"# comment\n" * 900 + b"\0", "ok.py": b"x = 1\n"}
    )
    assert reasons(tmp_path) == {"blob.py": "binary"}
    assert paths(tmp_path) == ["late_nul.py", "ok.py"]  # only the first 8 KiB are probed


def test_huge_file_is_skipped_with_its_size(tmp_path: Path) -> None:
    line = b"var a=function(){return 1};" * 40 + b"\n"
    with open(tmp_path / "bundle.js", "wb") as handle:
        handle.write(line * (20_000_000 // len(line)))
        handle.write(b"\n" * (20_000_000 - handle.tell()))
    make(tmp_path, {"small.js": "var a = 1;\n"})
    assert reasons(tmp_path) == {"bundle.js": "too large (20.0 MB > 2 MB)"}
    assert paths(tmp_path) == ["small.js"]


def test_size_limit_is_a_parameter(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x = 1\n" * 1000, "README.md": "# Title\n" + "text\n" * 1000})
    result = walk(tmp_path, max_code_bytes=5000, max_document_bytes=100_000)
    assert [source.path for source in result] == ["README.md"]
    assert result.skipped == (Skipped("a.py", "too large (0.0 MB > 0.005 MB)"),)


def test_minified_code_is_skipped_but_long_documents_are_not(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "vendor.js": "var a=1;" * 3000,  # one 24k-character line
            "dense.js": ("x" * 1500 + "\n") * 20,  # average line over 1000 characters
            "normal.js": "const a = 1;\n" * 500,
            "data.json": '{"a": "' + "y" * 30_000 + '"}',
        },
    )
    assert reasons(tmp_path) == {"dense.js": "minified", "vendor.js": "minified"}
    assert paths(tmp_path) == ["data.json", "normal.js"]


def test_source_file_fields(tmp_path: Path) -> None:
    make(tmp_path, {"pkg/mod.py": "print('hi')\n", "docs/guide.md": "# Guide\n"})
    assert list(walk(tmp_path)) == [
        SourceFile("docs/guide.md", tmp_path / "docs" / "guide.md", "document", 8),
        SourceFile("pkg/mod.py", tmp_path / "pkg" / "mod.py", "code", 12),
    ]


def test_order_is_sorted_and_stable(tmp_path: Path) -> None:
    names = [f"d{a}/s{b}/f{c}.py" for a in range(4) for b in range(3) for c in range(5)] + ["z.py", "a.py", "m/a.py"]
    random.Random(7).shuffle(names)
    make(tmp_path, {name: "" for name in names})
    first = paths(tmp_path)
    assert first == sorted(names)
    assert paths(tmp_path) == first


def test_walk_finds_every_file_of_a_few_thousand(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        f"pkg{a}/sub{b}/mod{c}.py": "x = 1\n" for a in range(20) for b in range(10) for c in range(15)
    }
    files.update({f"pkg{a}/.gitignore": "*.pyc\n!keep.pyc\n" for a in range(20)})
    make(tmp_path, files)
    result = walk(tmp_path)  # speed is measured in bench/, not here
    assert len(result) == 3000 and not result.skipped


# --- symlinks ---------------------------------------------------------------------------------------------------


def test_symlink_loop_is_reported_once_and_not_followed(tmp_path: Path) -> None:
    make(tmp_path, {"pkg/mod.py": "", "pkg/inner/x.py": ""})
    (tmp_path / "pkg" / "inner" / "back").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "self.py").symlink_to(tmp_path / "self.py")  # a link to itself: ELOOP
    result = walk(tmp_path)
    assert [source.path for source in result] == ["pkg/inner/x.py", "pkg/mod.py"]
    assert result.skipped == (Skipped("pkg/inner/back", "symlink loop"), Skipped("self.py", "symlink loop"))


def test_symlinked_directory_inside_the_root_is_walked_once(tmp_path: Path) -> None:
    make(tmp_path, {"real/a.py": "", ".gitignore": "hidden/\n", "hidden/h.py": ""})
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)  # same files as real/
    (tmp_path / "shown").symlink_to(tmp_path / "hidden", target_is_directory=True)  # target pruned by .gitignore
    result = walk(tmp_path)
    assert [source.path for source in result] == ["real/a.py", "shown/h.py"]
    assert result.skipped == (Skipped("alias", "symlink loop"),)


def test_symlinks_outside_the_root_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "repo"
    make(outside, {"lib/secret.py": "", "one.py": ""})
    make(root, {"main.py": ""})
    (root / "lib").symlink_to(outside / "lib", target_is_directory=True)
    (root / "one.py").symlink_to(outside / "one.py")
    (root / "image.png").symlink_to(outside / "one.py")  # not a file kind we read: not even reported
    result = walk(root)
    assert [source.path for source in result] == ["main.py"]
    assert result.skipped == (
        Skipped("lib", "symlink outside the repository"),
        Skipped("one.py", "symlink outside the repository"),
    )


def test_symlinked_file_inside_the_root_is_listed(tmp_path: Path) -> None:
    make(tmp_path, {"real.py": "x = 1\n"})
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    result = walk(tmp_path)
    assert [(source.path, source.size) for source in result] == [("link.py", 6), ("real.py", 6)]
    assert result.skipped == (Skipped("dangling.py", "broken symlink"),)


# --- permissions ------------------------------------------------------------------------------------------------

_UNPRIVILEGED = 65534  # nobody


def _walk_as_unprivileged_user(root: Path) -> dict[str, object]:
    """Walk in a forked child that dropped root, since root reads chmod-000 files anyway (CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        result = walk(root, kind_of=lambda path: "code")
        return {"files": [s.path for s in result], "skipped": [[s.path, s.reason] for s in result.skipped]}
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        status = 1
        try:
            os.close(read_end)
            os.setgid(_UNPRIVILEGED)
            os.setuid(_UNPRIVILEGED)
            result = walk(root, kind_of=lambda path: "code")
            report = {"files": [s.path for s in result], "skipped": [[s.path, s.reason] for s in result.skipped]}
            os.write(write_end, json.dumps(report).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        output = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the unprivileged walk failed"
    return json.loads(output)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to drop privileges")
def test_unreadable_file_and_directory_are_reported() -> None:
    # Not tmp_path: pytest's base temp directory is private to root, so the unprivileged child could not enter it.
    root = Path(tempfile.mkdtemp(prefix="kg-walk-perm-"))
    try:
        root.chmod(0o755)
        make(root, {"ok.py": "", "locked.py": "x = 1\n", "closed/inner.py": ""})
        for path in (root, root / "closed"):
            path.chmod(0o755)
        (root / "locked.py").chmod(0o000)
        (root / "closed").chmod(0o000)
        report = _walk_as_unprivileged_user(root)
    finally:
        (root / "closed").chmod(0o755)
        for path in sorted(root.rglob("*"), reverse=True):
            path.unlink() if not path.is_dir() else path.rmdir()
        root.rmdir()
    assert report == {
        "files": ["ok.py"],
        "skipped": [["closed", "permission denied"], ["locked.py", "permission denied"]],
    }


# --- reading and hashing ----------------------------------------------------------------------------------------


def test_read_text_replaces_invalid_utf8_and_flags_it(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.py"
    bad.write_bytes("name = 'Jos\xe9'\n".encode("latin-1"))
    make(tmp_path, {"good.py": "name = 'José'\n"})
    assert read_text(bad) == ("name = 'Jos\ufffd'\n", True)
    assert read_text(tmp_path / "good.py") == ("name = 'José'\n", False)
    assert paths(tmp_path) == ["good.py", "latin1.py"]  # a bad encoding is ingested (flagged), not skipped


def test_decode_drops_the_utf8_bom() -> None:
    assert decode(b"\xef\xbb\xbfimport os\n") == ("import os\n", False)
    assert decode(b"") == ("", False)


def test_content_hash_is_the_same_in_another_process_and_changes_with_any_byte() -> None:
    """The hash is stored in the graph and keys the parse cache: a later process must compute the same one."""
    data = b"def f():\n    return 1\n"
    script = "import sys; from kg.source_files import content_hash; print(content_hash(sys.stdin.buffer.read()))"
    elsewhere = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, check=True,
                               env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.decode().strip()
    assert content_hash(data) == elsewhere and re.fullmatch(r"[0-9a-f]{32}", elsewhere)
    variants = [data, data.replace(b"1", b"2"), data.replace(b"\n", b"\r\n"), data + b"\n", data[:-1], b"", b"\0"]
    assert len({content_hash(v) for v in variants}) == len(variants)


# --- hostile names and ignore files (attack report #7, #10) -----------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_skipped_with_a_reason_and_the_rest_walked(tmp_path: Path) -> None:
    make(tmp_path, {"pkg/ok.py": "x = 1\n"})
    (tmp_path / "pkg" / os.fsdecode(b"bad\xffname.py")).write_text("y = 2\n")
    (tmp_path / os.fsdecode(b"d\xe9j\xe0")).mkdir()  # latin-1 folder name: every file below it
    (tmp_path / os.fsdecode(b"d\xe9j\xe0") / "inner.py").write_text("z = 3\n")
    (tmp_path / "pkg" / os.fsdecode(b"logo\xff.png")).write_bytes(b"\x89PNG")  # not ingested anyway: not listed
    result = walk(tmp_path)
    assert [f.path for f in result] == ["pkg/ok.py"]
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("d\\xe9j\\xe0/inner.py", "its name is not valid UTF-8: rename it to ingest it"),
        ("pkg/bad\\xffname.py", "its name is not valid UTF-8: rename it to ingest it")]
    json.dumps([s.path for s in result.skipped]).encode("utf-8")  # the report can carry them


HOSTILE_LINE = "*a" * 24 + "*b"  # Python's re backtracks for minutes on this against a 40-character name


def test_a_backtracking_gitignore_line_is_matched_in_linear_time(tmp_path: Path) -> None:
    """Run in a child with a generous limit: before RE2 this walk did not end within minutes (a hang, not a speed
    figure)."""
    make(tmp_path, {".gitignore": HOSTILE_LINE + "\n", "a" * 40 + ".py": "x = 1\n", "ok.py": ""})
    script = "import sys, json; from kg.ingest.walk import walk; print(json.dumps([f.path for f in walk(sys.argv[1])]))"
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == ["a" * 40 + ".py", "ok.py"]
    # and the line still means what git says: 24 a's, then a name ending in b
    make(tmp_path, {"ab" * 24 + ".b": "", "ab" * 23 + ".b": "", "a" * 30 + "b": ""})
    listed = [f.path for f in walk(tmp_path, kind_of=lambda path: "code")]
    assert listed == [".gitignore", "a" * 40 + ".py", "ab" * 23 + ".b", "ok.py"]


def test_gitignore_lines_kg_cannot_use_are_listed_and_the_others_still_apply(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore": "gen/\nfoo\\\n" + "*x" * 600 + "\n*.tmp.py\n", "gen/a.py": "", "b.tmp.py": "",
                    "c.py": "", "sub/.gitignore": "[z-a]\\\nlocal.py\n", "sub/local.py": "", "sub/d.py": ""})
    result = walk(tmp_path)
    assert [f.path for f in result] == ["c.py", "sub/d.py"]
    assert [(s.path, s.reason) for s in result.skipped] == [
        (".gitignore", "line 2 not used: not a valid pattern"),
        (".gitignore", "line 3 not used: longer than 1,000 characters"),
        ("sub/.gitignore", "line 1 not used: not a valid pattern")]


def test_many_complex_gitignore_lines_keep_their_order(tmp_path: Path) -> None:
    """More wildcard lines than RE2 takes in one set: compiled in parts, the last matching line still wins."""
    lines = ["".join(f"*{chr(97 + (i + j) % 26)}" for j in range(12)) + f"{i}*" for i in range(400)]
    lines += ["keep*", "!keep_me.py", "drop*"]
    make(tmp_path, {".gitignore": "\n".join(lines) + "\n", "keep_me.py": "", "keep_not.py": "", "drop.py": "",
                    "other.py": ""})
    result = walk(tmp_path)
    assert [f.path for f in result] == ["keep_me.py", "other.py"] and result.skipped == ()


@pytest.mark.parametrize("pattern", ["foo\\", "*a" * 600])
def test_an_exclude_kg_cannot_use_is_a_one_line_error(tmp_path: Path, pattern: str) -> None:
    from kg.errors import InputError

    make(tmp_path, {"a.py": ""})
    with pytest.raises(InputError, match="^--exclude .* is (not a valid pattern|longer than)"):
        walk(tmp_path, (pattern,))


def test_ignore_rules_still_apply_to_names_that_are_not_utf8(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore": "gen*/\n*.gen.py\n", "ok.py": ""})
    (tmp_path / os.fsdecode(b"gen\xff")).mkdir()
    (tmp_path / os.fsdecode(b"gen\xff") / "x.py").write_text("")
    (tmp_path / os.fsdecode(b"b\xff.gen.py")).write_text("")
    (tmp_path / os.fsdecode(b"c\xff.py")).write_text("")
    result = walk(tmp_path)
    assert [f.path for f in result] == ["ok.py"] and [s.path for s in result.skipped] == ["c\\xff.py"]
