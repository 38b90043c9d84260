"""Is a new decision a duplicate of, or a contradiction of, one already recorded? Heuristics, said plainly.

Without a language model kg can compare wording, not meaning. What it does:

- normalizes both texts (lower case, `n't` → `not`, punctuation dropped, a plural `s` dropped, filler words and
  numbers set aside) and takes the Jaccard similarity of the remaining words, where the two words of an antonym
  pair (always/never, sync/async, allow/forbid, …) count as the same word;
- calls two texts a **contradiction** when they are similar enough *and* something flips between them: one is
  negated and the other is not, an antonym pair appears with opposite sides, or the numbers differ;
- calls them a **duplicate** when they are very similar and nothing flips.

It misses contradictions in different words ("poll the server" vs "the server pushes") and may flag look-alikes
that differ in a detail it ignores. That is why nothing is decided here: everything flagged goes to a person
(`kg decisions` lists it, `kg decisions settle|reject|supersede` settles it). `llm_check` adds a second opinion
when an LLM is configured; it can only add flags, never remove these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NEGATIONS = frozenset({"not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "without",
                       "cannot", "non"})
# Each pair is one word for similarity; which side a text uses is its polarity.
ANTONYMS = (("always", "never"), ("sync", "async"), ("synchronous", "asynchronous"), ("mutable", "immutable"),
            ("allow", "forbid"), ("allowed", "forbidden"), ("enable", "disable"), ("enabled", "disabled"),
            ("include", "exclude"), ("before", "after"), ("increase", "decrease"), ("min", "max"),
            ("minimum", "maximum"), ("true", "false"), ("accept", "reject"), ("required", "optional"),
            ("public", "private"), ("blocking", "nonblocking"), ("lazy", "eager"), ("lazily", "eagerly"),
            ("first", "last"), ("add", "remove"), ("local", "remote"), ("polling", "callback"), ("poll", "push"),
            ("read", "write"), ("inside", "outside"), ("safe", "unsafe"), ("valid", "invalid"),
            ("ascending", "descending"), ("upper", "lower"), ("more", "fewer"), ("above", "below"),
            ("forward", "backward"), ("forwards", "backwards"), ("stateful", "stateless"), ("open", "closed"))
_PAIR = {word: (f"{a}|{b}", side) for a, b in ANTONYMS for side, word in ((+1, a), (-1, b))}
_FILLER = frozenset("a an the is are was were be been being to of in on at for and or it its this that these those "
                    "we our us you your they their there here as by from with so then than do does did should must "
                    "shall will would can could may might only also just all any each every which who what when "
                    "where how".split())
_CONTRACTIONS = ((r"\bcan't\b", "can not"), (r"\bwon't\b", "will not"), (r"n't\b", " not"))
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Words:
    """A text as the heuristics see it."""

    content: frozenset[str]  # compared words, antonym pairs folded to one word
    negated: bool  # an odd number of negations
    polarity: dict[str, int]  # antonym pair → +1 / -1 (the side the text uses)
    numbers: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    kind: str  # duplicate | contradiction | none
    score: float  # similarity of the wording, 0..1
    reason: str


def words(text: str) -> Words:
    lowered = text.lower()
    for pattern, replacement in _CONTRACTIONS:
        lowered = re.sub(pattern, replacement, lowered)
    content: set[str] = set()
    negations = 0
    polarity: dict[str, int] = {}
    numbers: list[str] = []
    for token in _TOKEN.findall(lowered):
        if token[0].isdigit():
            numbers.append(token)
            continue
        if token in NEGATIONS:
            negations += 1
        if token in _PAIR:
            pair, side = _PAIR[token]
            polarity[pair] = side
            content.add(pair)
            continue
        if token in NEGATIONS or token in _FILLER:
            continue
        stem = token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token
        if stem in _PAIR:
            pair, side = _PAIR[stem]
            polarity[pair] = side
            content.add(pair)
            continue
        content.add(stem)
    return Words(frozenset(content), negations % 2 == 1, polarity, tuple(numbers))


def normalized(text: str) -> str:
    """The text with case, spacing and trailing punctuation ignored: equal means "the same decision again"."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def similarity(a: Words, b: Words) -> float:
    if not a.content and not b.content:
        return 1.0 if a.numbers == b.numbers else 0.0
    return len(a.content & b.content) / len(a.content | b.content)


def compare(new: str, old: str, duplicate_at: float = 0.7, contradiction_at: float = 0.6) -> Verdict:
    a, b = words(new), words(old)
    score = round(similarity(a, b), 3)
    flips = [f"{pair.split('|')[0 if a.polarity[pair] > 0 else 1]} vs "
             f"{pair.split('|')[0 if b.polarity[pair] > 0 else 1]}"
             for pair in sorted(set(a.polarity) & set(b.polarity)) if a.polarity[pair] != b.polarity[pair]]
    if a.negated != b.negated and not flips:
        flips.append("one is negated, the other is not")
    if a.numbers != b.numbers and a.numbers and b.numbers:
        flips.append(f"numbers differ ({', '.join(a.numbers)} vs {', '.join(b.numbers)})")
    if flips and score >= contradiction_at:
        return Verdict("contradiction", score, f"similar wording ({score:.2f}) but {'; '.join(flips)}")
    if not flips and score >= duplicate_at:
        return Verdict("duplicate", score, f"same wording ({score:.2f})")
    return Verdict("none", score, "")
