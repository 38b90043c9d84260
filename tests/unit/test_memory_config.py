"""`.agent/memory.yaml`: defaults, values, and one-line errors for a wrong file (no database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import ConfigError
from kg.memory.config import USER_THRESHOLD, MemoryConfig, load


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / ".agent").mkdir(exist_ok=True)
    (tmp_path / ".agent" / "memory.yaml").write_text(text)
    return tmp_path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    assert load(tmp_path) == MemoryConfig()


def test_values_from_the_file(tmp_path: Path) -> None:
    config = load(write(tmp_path, "confirm_threshold: 0.9\nunused_after_runs: 2\nllm_check: false\n"))
    assert (config.confirm_threshold, config.unused_after_runs, config.duplicate_similarity) == (0.9, 2, 0.7)
    assert config.note is None


@pytest.mark.parametrize("lowered", ["0", "0.0", "0.79"])
def test_a_repository_cannot_lower_the_confirm_threshold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         lowered: str) -> None:
    """`confirm_threshold: 0` in a repository's file would make every agent and MCP decision land confirmed."""
    monkeypatch.delenv(USER_THRESHOLD, raising=False)
    config = load(write(tmp_path, f"confirm_threshold: {lowered}\nunused_after_runs: 2\n"))
    assert config.confirm_threshold == 0.8 and config.unused_after_runs == 2
    assert config.note and "ignored" in config.note and USER_THRESHOLD in config.note and "\n" not in config.note


@pytest.mark.parametrize("loosened", ["contradiction_similarity: 1.0", "duplicate_similarity: 0.99"])
def test_a_repository_cannot_switch_off_duplicate_or_contradiction_checks(tmp_path: Path, loosened: str) -> None:
    """At similarity 1.0 no decision is ever flagged: a repository may flag more (lower), never less (higher)."""
    config = load(write(tmp_path, f"{loosened}\n"))
    assert (config.contradiction_similarity, config.duplicate_similarity) == (0.6, 0.7)
    assert config.note and loosened.split(":")[0] in config.note and "ignored" in config.note
    stricter = load(write(tmp_path, "contradiction_similarity: 0.4\nduplicate_similarity: 0.5\n"))
    assert (stricter.contradiction_similarity, stricter.duplicate_similarity, stricter.note) == (0.4, 0.5, None)


def test_the_user_sets_any_threshold_with_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(USER_THRESHOLD, "0.3")
    assert load(tmp_path).confirm_threshold == 0.3
    assert load(write(tmp_path, "confirm_threshold: 0\n")).confirm_threshold == 0.3  # the user's own wins
    assert load(tmp_path).note is None
    monkeypatch.setenv(USER_THRESHOLD, "lots")
    with pytest.raises(ConfigError, match=f"{USER_THRESHOLD} must be a number from 0 to 1"):
        load(tmp_path)


@pytest.mark.parametrize(("text", "message"), [
    ("confirm_threshold: 1.5\n", "confirm_threshold must be a number from 0 to 1"),
    ("threshold: 0.5\n", "unknown setting 'threshold'"),
    ("unused_after_runs: 0\n", "unused_after_runs must be a whole number"),
    ("- a\n- b\n", "must be a mapping"),
    ("confirm_threshold: [\n", "memory.yaml:2 is not valid YAML"),
])
def test_wrong_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")) as caught:
        load(write(tmp_path, text))
    assert "\n" not in str(caught.value)
