"""An optional second opinion on a new decision from an OpenAI-compatible LLM (`llm_check: true` in
.agent/memory.yaml, endpoint and model from KG_LLM_BASE_URL and KG_LLM_MODEL, key from KG_LLM_API_KEY or
OPENAI_API_KEY, as for `kg agent run`).

It only adds flags the wording heuristics missed (kg.memory.similarity); it never clears one, and a person still
settles every flag. When the model is unreachable or answers something unreadable, it says nothing: the check is
never required for a write to land.
"""

from __future__ import annotations

import json
import os
import re

from kg.errors import ConfigError

PROMPT = ("Two design decisions about the same code. Answer with JSON only: "
          '{"verdict": "contradiction" | "duplicate" | "compatible", "reason": one short sentence}.\n'
          "A: {new}\nB: {old}")


class LLMCheck:
    def __init__(self, base_url: str | None, model: str, api_key: str, timeout: float = 30.0) -> None:
        import openai  # here: every command that may write a decision would pay its import (~0.9 s) otherwise

        self.model = model
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=1)
        self._failures = (openai.OpenAIError, IndexError, AttributeError)

    @classmethod
    def from_environment(cls) -> LLMCheck:
        model = os.environ.get("KG_LLM_MODEL")
        base_url = os.environ.get("KG_LLM_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        key = os.environ.get("KG_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or ("none" if base_url else "")
        if not model or not key:
            raise ConfigError("llm_check is on in .agent/memory.yaml but no LLM is configured: set KG_LLM_MODEL and "
                              "KG_LLM_BASE_URL (or OPENAI_API_KEY), or turn llm_check off")
        return cls(base_url, model, key)

    def compare(self, new: str, old: str) -> tuple[str, str] | None:
        """(contradiction|duplicate, reason) when the model sees one, else None."""
        try:
            reply = self._client.chat.completions.create(
                model=self.model, temperature=0,
                messages=[{"role": "user", "content": PROMPT.replace("{new}", new).replace("{old}", old)}])
            content = reply.choices[0].message.content or ""
        except self._failures:
            return None
        match = re.search(r"\{.*\}", content, re.DOTALL)
        try:
            data = json.loads(match.group(0)) if match else {}
        except json.JSONDecodeError:
            return None
        verdict = data.get("verdict") if isinstance(data, dict) else None
        if verdict in ("contradiction", "duplicate"):
            return verdict, str(data.get("reason") or "the model says so")[:200]
        return None


def checker_for(enabled: bool) -> LLMCheck | None:
    return LLMCheck.from_environment() if enabled else None
