"""The duplicate and contradiction heuristics on wording (no database): what they catch and what they let through."""

from __future__ import annotations

import pytest

from kg.memory.similarity import compare, normalized, words


@pytest.mark.parametrize(("new", "old", "kind"), [
    ("Checkout never mutates the cart", "Checkout mutates the cart", "contradiction"),
    ("Checkout doesn't mutate the cart", "Checkout mutates the cart", "contradiction"),
    ("Use polling, not callbacks, for status updates", "Use callbacks for status updates", "contradiction"),
    ("The state machine always moves forwards", "The state machine never moves forwards", "contradiction"),
    ("Retry a failed upload 3 times", "Retry a failed upload 5 times", "contradiction"),
    ("Session.send is synchronous", "Session.send is asynchronous", "contradiction"),
    ("Prices are stored as integer cents", "prices are stored as integer cents!", "duplicate"),
    ("Orders are saved by OrderStore.save", "Orders get saved by OrderStore.save", "duplicate"),
    ("Prices are integer cents", "Log every request at debug level", "none"),
    ("Cart.checkout clears the cart", "Cart.add does not clear the cart", "none"),  # different subjects
])
def test_verdicts(new: str, old: str, kind: str) -> None:
    verdict = compare(new, old)
    assert verdict.kind == kind, verdict


def test_reasons_say_what_flipped() -> None:
    assert "always vs never" in compare("Always retry", "Never retry").reason
    assert "numbers differ (3 vs 5)" in compare("Retry 3 times", "Retry 5 times").reason
    assert "negated" in compare("Do not cache tokens", "Cache tokens").reason


def test_normalized_ignores_case_spacing_and_punctuation() -> None:
    assert normalized("  Prices are   CENTS. ") == normalized("prices are cents")
    assert normalized("prices are cents") != normalized("prices are not cents")


def test_words_fold_antonym_pairs_and_plurals() -> None:
    a, b = words("Callbacks are blocking"), words("callback is nonblocking")
    assert a.content == b.content and a.polarity != b.polarity


def test_thresholds_come_from_the_caller() -> None:
    assert compare("Retry uploads", "Retry downloads", duplicate_at=0.3).kind == "duplicate"
    assert compare("Retry uploads", "Retry downloads").kind == "none"
