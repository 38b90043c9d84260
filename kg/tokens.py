"""Offline token counts. `bpe-openai` bundles cl100k and o200k (plain tiktoken downloads its files and fails
offline). Counts are the ledger's estimate per segment; the API's reported usage is the truth they reconcile with.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing it reads both vocabularies (~0.9 s): only when a count is first needed
    import bpe_openai

DEFAULT_ENCODING = "cl100k_base"


@cache
def _encoding(name: str) -> bpe_openai.Encoding:
    import bpe_openai

    return bpe_openai.get_encoding(name)


def encoding_for(model: str | None) -> str:
    """o200k for the models that use it, cl100k for everything else (local models' own tokenizers differ anyway)."""
    m = (model or "").lower()
    return "o200k_base" if m.startswith(("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4")) else DEFAULT_ENCODING


class Tokenizer:
    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        self.name = encoding
        self._enc = _encoding(encoding)

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=())) if text else 0

    def cut(self, text: str, max_tokens: int) -> tuple[str, bool]:
        """The text cut to at most `max_tokens` tokens (at a token boundary), and whether it was cut."""
        ids = self._enc.encode(text, disallowed_special=())
        if len(ids) <= max_tokens:
            return text, False
        return self._enc.decode(ids[:max_tokens]), True
