"""kg.navigate.value_uses._named_again: which names a file names again, as words not after a dot."""

from __future__ import annotations

from kg.navigate.value_uses import Candidate, _named_again, used_by_name


def functions(*names: str) -> dict[str, list[Candidate]]:
    return {n: [Candidate(n, "function", 1, 1)] for n in names}


def test_a_name_counts_again_only_as_a_whole_word_not_after_a_dot() -> None:
    text = ("def run():\n    pass\n\ndef runner():\n    obj.run()\n    rerun = 1\n\n"
            "handlers = [runner, ünï]\ndef ünï(): pass\n")
    assert _named_again(text, functions("run", "runner", "ünï", "rerun", "absent")) == {"runner", "ünï", "rerun"}


def test_many_names_in_a_large_file() -> None:
    names = functions(*(f"f{i}" for i in range(20_000)))
    text = "".join(f"def f{i}():\n    return {i}\n" for i in range(20_000)) + "table = [f7, f19999, obj.f5]\n"
    assert _named_again(text, names) == {"f7", "f19999"}


def test_a_method_named_through_self_counts_only_when_not_called() -> None:
    text = ("class A:\n    def setup(self):\n        self.handlers = [self.on_close]\n        self.run ()\n"
            "    def on_close(self):\n        return self.on_close\n    def run(self):\n        pass\n")
    on_close, run = Candidate("on_close", "method", 5, 6), Candidate("run", "method", 7, 8)
    assert used_by_name(text, [on_close, run]) == {on_close}  # handed on in setup; run is only called
    alone = text.replace("[self.on_close]", "[]")
    assert used_by_name(alone, [on_close, run]) == set()  # naming itself inside its own body does not count


def test_definitions_of_the_same_name_in_other_classes_are_not_uses() -> None:
    """Many classes of a test file define `get`: their `def` lines name nothing, so the file is not parsed at all
    for a candidate `get` (the superset filter that keeps dead-code's reading of django's files short)."""
    text = "class A:\n    def get(self):\n        pass\nclass B:\n    def get(self):\n        return get_x()\n"
    assert _named_again(text, {"get": [Candidate("get", "method", 2, 3)]}) == set()
    assert _named_again(text + "p = property(get)\n", {"get": [Candidate("get", "method", 2, 3)]}) == {"get"}
