"""Symbol.hash (ingest.walk.span_hash): what changes it and what does not (no database)."""

from __future__ import annotations

from kg.ingest.walk import span_hash

SOURCE = ["class Cart:", "    def add(self, item):", "        self.items.append(item)  ", "", "    def total(self):",
          "        return sum(self.items)"]


def test_moving_or_reindenting_a_symbol_keeps_its_hash() -> None:
    add = span_hash(SOURCE, 2, 3)
    moved = ["# a new first line", "", *SOURCE]
    assert span_hash(moved, 4, 5) == add
    top_level = ["def add(self, item):", "    self.items.append(item)"]
    assert span_hash(top_level, 1, 2) == add  # indented as a whole: the same code
    assert span_hash(SOURCE, 1, 6) != add


def test_an_edit_inside_the_symbol_changes_it_and_only_it() -> None:
    edited = list(SOURCE)
    edited[5] = "        return sum(self.items) + 1"
    assert span_hash(edited, 5, 6) != span_hash(SOURCE, 5, 6)
    assert span_hash(edited, 2, 3) == span_hash(SOURCE, 2, 3)
    nested = list(SOURCE)
    nested[2] = "    self.items.append(item)"  # indentation inside the body changed: that is a change
    assert span_hash(nested, 2, 3) != span_hash(SOURCE, 2, 3)
