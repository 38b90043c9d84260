"""Offline token counts for the agent: kg.tokens, which the retrieval context in kg's core counts with too."""

from __future__ import annotations

from kg.tokens import DEFAULT_ENCODING, Tokenizer, encoding_for

__all__ = ["DEFAULT_ENCODING", "Tokenizer", "encoding_for"]
