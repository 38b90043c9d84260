"""The LLM through the `openai` client, against any OpenAI-compatible endpoint (OpenAI, llama.cpp, vLLM, a replay).

Model, base URL and key come from flags or the environment (KG_LLM_MODEL, KG_LLM_BASE_URL, KG_LLM_API_KEY or
OPENAI_API_KEY), never from a tracked file. Rate limits, server errors, timeouts and dropped connections are
retried with exponential backoff (tenacity), or after the wait a 429/503 asks for in its Retry-After header; what
still fails becomes one LLMError line. Usage is returned as the
API reported it, including cached prompt tokens, for the ledger to reconcile with its own counts.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from kg.agent.errors import LLMError, LLMTimeout
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

# `openai` is imported when a client is made: importing it costs ~0.8 s, which `kg --help` and every command that
# loads the agent's modules without calling a model would pay.
MAX_RETRY_AFTER = 60.0  # seconds; a longer Retry-After gets the usual backoff, as the openai package does


@dataclass(frozen=True)
class LLMConfig:
    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    attempts: int = 4
    backoff: float = 1.0  # first retry wait in seconds, doubling with jitter
    max_tokens: int = 4096
    temperature: float = 0.0

    @classmethod
    def resolve(cls, model: str | None = None, base_url: str | None = None, **options: Any) -> LLMConfig:
        """Flags first, then the environment. The key is only ever read from the environment."""
        model = model or os.environ.get("KG_LLM_MODEL")
        if not model:
            raise LLMError("no model: pass --model or set KG_LLM_MODEL")
        base_url = base_url or os.environ.get("KG_LLM_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        key = os.environ.get("KG_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise LLMError("no API key: set OPENAI_API_KEY (or KG_LLM_API_KEY), or --base-url for a local server")
        return cls(model, base_url, key or "not-needed", **{k: v for k, v in options.items() if v is not None})


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    total_tokens: int = 0
    reported: bool = False  # False: the endpoint sent no usage

    def to_props(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cached_tokens": self.cached_tokens, "total_tokens": self.total_tokens}


@dataclass
class ToolCall:
    name: str
    arguments: str
    id: str = ""


@dataclass
class Reply:
    tool_calls: list[ToolCall]
    content: str
    usage: Usage
    seconds: float  # waiting for the endpoint, retries included
    attempts: int


class LLMClient:
    def __init__(self, config: LLMConfig, record_to: Path | None = None) -> None:
        import openai

        self.config = config
        self._client = openai.OpenAI(api_key=config.api_key, base_url=config.base_url, timeout=config.timeout,
                                     max_retries=0)  # tenacity retries, so the policy lives in one place
        self._record_to = record_to or (Path(p) if (p := os.environ.get("KG_LLM_RECORD")) else None)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                 tool_choice: str | dict[str, Any] | None = None) -> Reply:
        import openai
        from openai.types.chat import ChatCompletion

        retryable = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                     openai.APIConnectionError)
        kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                  "max_tokens": self.config.max_tokens, "temperature": self.config.temperature}
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = _tool_choice(tool_choice)
        began = time.perf_counter()
        attempts = 0
        backoff = (wait_exponential(multiplier=self.config.backoff, max=30 * self.config.backoff)
                   + wait_random(0, self.config.backoff))
        retrying = Retrying(retry=retry_if_exception_type(retryable), reraise=True,
                            stop=stop_after_attempt(self.config.attempts), wait=_honouring_retry_after(backoff))
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError as e:
            raise LLMTimeout(f"the LLM at {self._where()} did not answer within {self.config.timeout:g} s "
                             f"({attempts} attempts): check the server or raise --llm-timeout") from e
        except openai.APIConnectionError as e:
            raise LLMError(f"cannot reach the LLM at {self._where()} ({attempts} attempts): is the server "
                           "running? check --base-url / KG_LLM_BASE_URL") from e
        except openai.AuthenticationError as e:
            raise LLMError(f"the LLM at {self._where()} refused the API key: check KG_LLM_API_KEY / "
                           "OPENAI_API_KEY") from e
        except openai.APIStatusError as e:
            raise LLMError(f"the LLM at {self._where()} answered {e.status_code} after {attempts} attempts: "
                           f"{_first_line(e.message)}") from e
        except ValueError as e:  # a body that is not JSON
            raise LLMError(self._not_a_completion()) from e
        if not isinstance(response, ChatCompletion):  # HTML, a bare list…: not a chat completion endpoint
            raise LLMError(self._not_a_completion())
        seconds = time.perf_counter() - began
        if self._record_to:
            self._record(response)
        return _reply(response, seconds, attempts)

    def _where(self) -> str:
        return self.config.base_url or "api.openai.com"

    def _not_a_completion(self) -> str:
        return (f"the LLM at {self._where()} did not answer with a chat completion: check that --base-url / "
                "KG_LLM_BASE_URL is an OpenAI-compatible endpoint (usually ending in /v1)")

    def _record(self, response: Any) -> None:
        """Append the raw response to a transcript, so a real session can be replayed in tests."""
        with self._record_to.open("a", encoding="utf-8") as f:  # type: ignore[union-attr]
            f.write(json.dumps({"raw": response.model_dump(mode="json", exclude_none=True)}) + "\n")


def _honouring_retry_after(backoff: Callable[[RetryCallState], float]) -> Callable[[RetryCallState], float]:
    """A tenacity wait: what the failed response's Retry-After asks for when it is sensible, else `backoff`."""

    def wait(state: RetryCallState) -> float:
        asked = _retry_after(state.outcome.exception() if state.outcome else None)
        return asked if asked is not None and 0 < asked <= MAX_RETRY_AFTER else backoff(state)

    return wait


def _retry_after(error: BaseException | None) -> float | None:
    """Seconds a refused request was told to wait: `retry-after-ms`, or `Retry-After` in seconds or as a date."""
    headers = getattr(getattr(error, "response", None), "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(headers[name]) * scale
        except (KeyError, ValueError):
            pass
    try:  # an HTTP date
        return parsedate_to_datetime(headers.get("retry-after", "")).timestamp() - time.time()
    except (TypeError, ValueError):
        return None


def _tool_choice(choice: str | dict[str, Any] | None) -> str | dict[str, Any]:
    if choice is None or choice in ("auto", "required", "none"):
        return choice or "auto"
    if isinstance(choice, str):  # a tool name: force that tool
        return {"type": "function", "function": {"name": choice}}
    return choice


def _reply(response: Any, seconds: float, attempts: int) -> Reply:
    """The answer as the loop needs it. Endpoints are validated loosely by `openai`, so anything not shaped like a
    chat completion (no choices, a tool call without a name, arguments sent as an object) is read defensively: the
    model's mistakes become a turn the model is told about, never a crash."""
    choices = getattr(response, "choices", None)
    message = getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
    raw_calls = getattr(message, "tool_calls", None)
    calls = [_call(getattr(c, "function", None), getattr(c, "id", "")) for c in raw_calls
             if getattr(c, "function", None) is not None] if isinstance(raw_calls, list) else []
    if not calls and getattr(message, "function_call", None) is not None:  # the legacy field some servers fill
        calls = [_call(message.function_call, "")]
    content = getattr(message, "content", None)
    return Reply(calls, content if isinstance(content, str) else "", _usage(getattr(response, "usage", None)),
                 seconds, attempts)


def _call(function: Any, call_id: Any) -> ToolCall:
    name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    if arguments is not None and not isinstance(arguments, str):  # some servers send the object itself
        arguments = json.dumps(arguments, default=str)
    return ToolCall(name if isinstance(name, str) else str(name or ""), arguments or "",
                    call_id if isinstance(call_id, str) else "")


def _usage(u: Any) -> Usage:
    if not hasattr(u, "prompt_tokens"):  # none sent (or not a usage object)
        return Usage()
    count = lambda v: v if isinstance(v, int) and not isinstance(v, bool) else 0  # noqa: E731
    prompt, completion = count(getattr(u, "prompt_tokens", 0)), count(getattr(u, "completion_tokens", 0))
    cached = count(getattr(getattr(u, "prompt_tokens_details", None), "cached_tokens", 0))
    return Usage(prompt, completion, cached, count(getattr(u, "total_tokens", 0)) or prompt + completion, True)


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else "no message"
