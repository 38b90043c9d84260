"""kg.navigate.value_uses._named_again: which names a file names again, as words not after a dot."""

from __future__ import annotations

from kg.navigate.value_uses import _named_again


def test_a_name_counts_again_only_as_a_whole_word_not_after_a_dot() -> None:
    text = ("def run():\n    pass\n\ndef runner():\n    obj.run()\n    rerun = 1\n\n"
            "handlers = [runner, ünï]\ndef ünï(): pass\n")
    assert _named_again(text, {"run", "runner", "ünï", "rerun", "absent"}) == {"runner", "ünï"}


def test_many_names_in_a_large_file() -> None:
    names = {f"f{i}" for i in range(20_000)}
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(20_000)) + "table = [f7, f19999, obj.f5]\n"
    assert _named_again(text, names) == {"f7", "f19999"}
