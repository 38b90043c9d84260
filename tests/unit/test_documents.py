"""Documents and their chunks: kinds, headings, line numbers that cite the right source lines, and fallbacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kg.ingest.documents import MAX_CHUNK_CHARS, WINDOW_LINES, Chunk, Document, chunk_document, document_kind

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


def fixture(name: str) -> Document:
    return chunk_document(name, (FIXTURES / name).read_text(encoding="utf-8"))


def outline(document: Document) -> list[tuple[str, int, int]]:
    return [(chunk.heading, chunk.start_line, chunk.end_line) for chunk in document.chunks]


def assert_cites_source(document: Document, text: str) -> None:
    """Every chunk's text is exactly the source lines its line numbers name, and ordinals count from 0."""
    lines = text.split("\n")
    for ordinal, chunk in enumerate(document.chunks):
        assert chunk.ordinal == ordinal
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line]), chunk.heading


# --- kinds ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("README.md", "markdown"),
        ("docs/guide.markdown", "markdown"),
        ("CONTRIBUTING.rst", "markdown"),
        ("README", "markdown"),
        ("README.txt", "markdown"),
        ("docs/intro/tutorial01.txt", "markdown"),
        ("notes.txt", None),
        ("tests/data/words.txt", None),
        ("config/app.yaml", "yaml"),
        (".github/workflows/ci.yml", "yaml"),
        ("docker-compose.yml", "compose"),
        ("docker-compose.prod.yaml", "compose"),
        ("compose.yaml", "compose"),
        ("pyproject.toml", "toml"),
        ("package.json", "json"),
        ("package-lock.json", None),
        ("requirements.txt", "requirements"),
        ("requirements-dev.txt", "requirements"),
        ("requirements/base.txt", "requirements"),
        ("requirements.in", "requirements"),
        ("constraints.txt", "requirements"),
        ("MANIFEST.in", None),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.dev", "dockerfile"),
        ("api.dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("setup.cfg", "ini"),
        ("tox.ini", "ini"),
        (".flake8", "ini"),
        ("app.py", None),
        ("logo.png", None),
    ],
)
def test_document_kind(path: str, kind: str | None) -> None:
    assert document_kind(path) == kind


# --- markdown ---------------------------------------------------------------------------------------------------


def test_markdown_heading_paths_ignore_fenced_code_and_front_matter() -> None:
    document = fixture("README.md")
    assert document.kind == "markdown" and document.title == "Widget" and document.error is None
    assert outline(document) == [
        ("", 1, 3),  # front matter: its `title: ...` over `---` is no setext heading
        ("Widget", 5, 7),
        ("Widget > Install", 9, 14),  # the `# this comment` inside ```bash stays in the section
        ("Widget > Install > From source", 16, 18),
        ("Widget > Usage", 20, 27),  # setext `---`; `## still code` in the ~~~ fence is not a heading
        ("Configuration", 29, 32),  # setext `===` is level 1 and closes Widget
    ]
    assert "# this comment is not a heading" in document.chunks[2].text
    assert_cites_source(document, (FIXTURES / "README.md").read_text())


def test_markdown_heading_with_only_subsections_is_folded_into_them() -> None:
    text = "# Guide\n\n## Setup\n\nRun it.\n\n## Use\n\nCall it.\n"
    assert outline(chunk_document("guide.md", text)) == [("Guide > Setup", 3, 5), ("Guide > Use", 7, 9)]


def test_markdown_without_headings_is_one_chunk_titled_by_file_name() -> None:
    document = chunk_document("docs/notes.md", "\nJust some text.\nMore text.\n\n")
    assert document.title == "notes.md"
    assert document.chunks == (Chunk(0, "", "Just some text.\nMore text.", 2, 3),)


def test_markdown_setext_heading_spans_its_whole_multi_line_paragraph() -> None:
    text = "# Guide\n\nIntro.\n\nA heading that\nwraps two lines\n---------------\n\nBody.\n"
    document = chunk_document("guide.md", text)
    assert outline(document) == [("Guide", 1, 3), ("Guide > A heading that wraps two lines", 5, 9)]
    assert_cites_source(document, text)


def test_markdown_closing_fence_may_be_indented_up_to_three_spaces() -> None:
    text = "# Real\n\n```\n# code\n   ```\n\n# Next\n\nText.\n"
    assert outline(chunk_document("x.md", text)) == [("Real", 1, 5), ("Next", 7, 9)]


def test_markdown_closing_fence_indented_four_spaces_does_not_lose_the_next_heading() -> None:
    text = "# Real\n\n```\ncode\n    ```\n# inside code\n```\n\n# Next\n\nText.\n"
    document = chunk_document("x.md", text)
    assert outline(document) == [("Real", 1, 7), ("Next", 9, 11)]
    assert "# inside code" in document.chunks[0].text


def test_markdown_hash_line_inside_an_html_block_is_no_heading() -> None:
    text = "# Page\n\n<div>\n# not a heading\n</div>\n\n## Part\n\nText.\n"
    document = chunk_document("x.md", text)
    assert outline(document) == [("Page", 1, 5), ("Page > Part", 7, 9)]


def test_markdown_headings_inside_quotes_and_lists_do_not_cut_sections() -> None:
    text = "# Page\n\n> # quoted\n\n- # in a list\n\n    # indented code\n\n## Part\n\nText.\n"
    assert outline(chunk_document("x.md", text)) == [("Page", 1, 7), ("Page > Part", 9, 11)]


def test_restructuredtext_titles_with_overlines_and_levels_by_first_use() -> None:
    text = "=====\nGuide\n=====\n\nIntro.\n\nInstall\n-------\n\nSteps.\n\nPip\n~~~\n\npip install x\n"
    text += "\nUsage\n-----\n\nRun.\n"
    document = chunk_document("docs/guide.rst", text)
    assert document.title == "Guide"
    assert outline(document) == [
        ("Guide", 1, 5),
        ("Guide > Install", 7, 10),
        ("Guide > Install > Pip", 12, 15),
        ("Guide > Usage", 17, 20),
    ]
    assert_cites_source(document, text)


def test_rst_needs_a_blank_line_before_an_underlined_title() -> None:
    text = "Intro\n=====\n\nA paragraph\nline two\n--------\n\nText\n~~~~\n"  # only Text is a title
    assert [chunk.heading for chunk in chunk_document("x.rst", text).chunks] == ["Intro", "Intro > Text"]


# --- YAML, compose ----------------------------------------------------------------------------------------------


def test_yaml_one_chunk_per_top_level_key_with_its_comment_and_exact_lines() -> None:
    document = fixture("config.yaml")
    assert document.kind == "yaml" and document.error is None
    assert outline(document) == [("app", 1, 4), ("logging", 6, 11), ("description", 12, 14)]
    assert document.chunks[0].text.startswith("# Application settings\napp:")
    assert_cites_source(document, (FIXTURES / "config.yaml").read_text())


def test_compose_one_chunk_per_service_plus_other_keys() -> None:
    document = fixture("docker-compose.yml")
    assert document.kind == "compose"
    assert outline(document) == [
        ("version", 1, 1),
        ("services > web", 3, 9),
        ("services > db", 10, 14),
        ("volumes", 16, 17),
    ]
    assert document.chunks[2].text.startswith("  # the database\n  db:")
    assert_cites_source(document, (FIXTURES / "docker-compose.yml").read_text())


def test_multi_document_yaml_is_one_chunk_per_document() -> None:
    text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\n"
    document = chunk_document("k8s/web.yaml", text)
    assert outline(document) == [("Service web", 1, 4), ("Deployment", 6, 7)]


def test_yaml_top_level_list_is_one_chunk_per_item() -> None:
    text = "- name: install\n  run: pip install .\n- run: pytest\n"
    assert outline(chunk_document("steps.yml", text)) == [("install", 1, 2), ("[1]", 3, 3)]


def test_invalid_yaml_falls_back_to_line_windows_and_reports_parse_error() -> None:
    text = "".join(f"key{n}: value\n" for n in range(WINDOW_LINES + 10)) + "broken: [unclosed\n"
    document = chunk_document("broken.yaml", text)
    assert document.error is not None and document.error.startswith("parse_error: ")
    assert outline(document) == [(f"lines 1-{WINDOW_LINES}", 1, WINDOW_LINES), ("lines 51-61", 51, 61)]
    assert_cites_source(document, text)


# --- TOML and JSON ----------------------------------------------------------------------------------------------


def test_toml_root_keys_tables_and_numbered_array_tables() -> None:
    document = fixture("pyproject.toml")
    assert document.kind == "toml" and document.error is None
    assert outline(document) == [
        ("name", 1, 1),
        ("description", 2, 4),  # `[not.a.table]` sits inside a multi-line string
        ("project", 6, 11),  # `"[brackets] in a string"` inside the array is no table either
        ("tool.ruff", 13, 15),  # with the comment above it
        ("tool.hooks[0]", 17, 18),
        ("tool.hooks[1]", 20, 21),
    ]
    assert_cites_source(document, (FIXTURES / "pyproject.toml").read_text())


def test_invalid_toml_reports_parse_error() -> None:
    document = chunk_document("pyproject.toml", '[project]\nname = "x\n')
    assert document.error is not None and document.error.startswith("parse_error: ")
    assert outline(document) == [("lines 1-2", 1, 2)]


def test_json_top_level_keys_keep_their_source_lines() -> None:
    document = fixture("package.json")
    assert outline(document) == [("name", 2, 2), ("version", 3, 3), ("scripts", 4, 6), ("devDependencies", 7, 9)]
    assert_cites_source(document, (FIXTURES / "package.json").read_text())


def test_json_with_crlf_line_endings_keeps_line_numbers() -> None:
    text = '{\r\n  "a": 1,\r\n  "b": {\r\n    "c": "{not a key}"\r\n  }\r\n}\r\n'
    assert outline(chunk_document("x.json", text)) == [("a", 2, 2), ("b", 3, 5)]


def test_minified_json_is_reserialised_per_key() -> None:
    text = json.dumps({"name": "widget", "scripts": {"test": "node --test"}}, separators=(",", ":"))
    document = chunk_document("package.json", text)
    assert [chunk.heading for chunk in document.chunks] == ["name", "scripts"]
    assert document.chunks[1].text == '"scripts": {\n  "test": "node --test"\n}'
    assert (document.chunks[1].start_line, document.chunks[1].end_line) == (1, 1)


def test_invalid_json_reports_parse_error() -> None:
    document = chunk_document("package.json", '{"name": "widget",,}')
    assert document.error is not None and document.error.startswith("parse_error: ")
    assert len(document.chunks) == 1


# --- line formats -----------------------------------------------------------------------------------------------


def test_dockerfile_one_chunk_per_stage() -> None:
    document = fixture("Dockerfile")
    assert document.kind == "dockerfile"
    assert outline(document) == [("build", 1, 5), ("python:${PYTHON}-slim", 7, 11)]
    assert document.chunks[1].text.startswith("# runtime image\nFROM")
    assert_cites_source(document, (FIXTURES / "Dockerfile").read_text())


def test_requirements_one_chunk_per_commented_section() -> None:
    document = fixture("requirements-dev.txt")
    assert document.kind == "requirements"
    assert outline(document) == [("", 1, 1), ("testing", 3, 5), ("linting", 7, 9)]


def test_ini_one_chunk_per_section() -> None:
    text = "[metadata]\nname = widget\n\n; flake8 settings\n[flake8]\nmax-line-length = 120\n"
    assert outline(chunk_document("setup.cfg", text)) == [("metadata", 1, 2), ("flake8", 4, 6)]


# --- size and emptiness -----------------------------------------------------------------------------------------


def test_huge_sections_are_split_on_line_boundaries_with_numbered_headings() -> None:
    body = [f"Line {n:04} of a long section that keeps going." for n in range(200)]
    text = "# Big\n\n" + "\n".join(body) + "\n"
    document = chunk_document("big.md", text)
    headings = [chunk.heading for chunk in document.chunks]
    assert headings[0] == "Big" and headings[1] == "Big (2)" and len(headings) == 5
    assert all(len(chunk.text) <= MAX_CHUNK_CHARS for chunk in document.chunks)
    assert all(a.end_line + 1 == b.start_line for a, b in zip(document.chunks, document.chunks[1:], strict=False))
    assert document.chunks[-1].end_line == 202
    assert_cites_source(document, text)


def test_a_single_enormous_line_is_cut_into_slices_citing_that_line() -> None:
    text = '{"blob": "' + "x" * 5000 + '"}'
    document = chunk_document("data.json", text)
    assert [(chunk.start_line, chunk.end_line) for chunk in document.chunks] == [(1, 1)] * 3
    assert "".join(chunk.text for chunk in document.chunks) == text
    assert [chunk.heading for chunk in document.chunks] == ["blob", "blob (2)", "blob (3)"]


@pytest.mark.parametrize("name", ["README.md", "config.yaml", "pyproject.toml", "package.json", "Dockerfile"])
def test_empty_files_give_no_chunks(name: str) -> None:
    document = chunk_document(name, "  \n\n")
    assert document.chunks == () and document.error is None
