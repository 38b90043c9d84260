"""The LLM client: retries that honour Retry-After, and the helpers that read what an endpoint sent.

The retry tests drive the real `openai` client against `kg.agent.testing.ReplayServer`, a real HTTP server on
127.0.0.1 replaying recorded responses (no real model needed: they test the protocol, not the answers).
"""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

import pytest
from kg.agent.errors import LLMError
from kg.agent.llm import LLMClient, LLMConfig, Usage, _first_line, _usage
from kg.agent.testing import ReplayServer

MESSAGES = [{"role": "system", "content": "You write code."}, {"role": "user", "content": "Say hello."}]
ANSWER = {"content": "hello"}


def client(server: ReplayServer, attempts: int = 3) -> LLMClient:
    # backoff 0.01 s: any wait much longer than that was asked for by the server
    return LLMClient(LLMConfig("replay", server.base_url, "test-key", timeout=10, attempts=attempts, backoff=0.01))


def timed(server: ReplayServer, attempts: int = 3) -> tuple[Any, float]:
    began = time.perf_counter()
    reply = client(server, attempts).complete(MESSAGES)
    return reply, time.perf_counter() - began


# --- retries ----------------------------------------------------------------------------------------------------


def test_a_429_with_retry_after_is_retried_after_the_asked_wait_and_counted_once() -> None:
    with ReplayServer([{"status": 429, "headers": {"Retry-After": "1"}}, ANSWER]) as server:
        reply, seconds = timed(server)
        assert len(server.requests) == 2
    assert seconds >= 1.0  # the header, not the 0.01 s backoff
    assert reply.content == "hello" and reply.attempts == 2
    # one answer, one usage: the refused attempt reports none, so the ledger cannot count the call twice
    assert len(server.served) == 1
    assert reply.usage.to_props() == {k: v for k, v in server.served[0].items() if k != "prompt_tokens_details"} | {
        "cached_tokens": server.served[0]["prompt_tokens_details"]["cached_tokens"]}


def test_a_503_with_retry_after_ms_is_retried_after_the_asked_wait() -> None:
    with ReplayServer([{"status": 503, "headers": {"retry-after-ms": "700"}}, ANSWER]) as server:
        reply, seconds = timed(server)
    assert seconds >= 0.7 and reply.attempts == 2


def test_retry_after_as_an_http_date_is_honoured() -> None:
    when = formatdate(time.time() + 2, usegmt=True)  # whole seconds: the wait is between 1 and 2 s
    with ReplayServer([{"status": 429, "headers": {"Retry-After": when}}, ANSWER]) as server:
        reply, seconds = timed(server)
    assert seconds >= 1.0 and reply.attempts == 2


def test_a_retry_after_beyond_the_cap_falls_back_to_backoff_and_fails_in_one_line() -> None:
    refusal = {"status": 429, "headers": {"Retry-After": "3600"}}
    with ReplayServer([refusal, refusal]) as server:
        began = time.perf_counter()
        with pytest.raises(LLMError, match=r"answered 429 after 2 attempts"):
            client(server, attempts=2).complete(MESSAGES)
        assert time.perf_counter() - began < 30 and len(server.requests) == 2


def test_client_errors_are_not_retried() -> None:
    with ReplayServer([{"status": 400, "message": "bad request"}, ANSWER]) as server:
        with pytest.raises(LLMError, match=r"answered 400 after 1 attempts: .*bad request"):
            client(server).complete(MESSAGES)
        assert len(server.requests) == 1


# --- reading what an endpoint sent (served as recorded by the replay server, read by the real client) -----------


def raw(message: dict[str, Any] | None = None, usage: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "x", "object": "chat.completion", "created": 0, "model": "replay",
                            "choices": [{"index": 0, "message": {"role": "assistant", **(message or {})},
                                         "finish_reason": "stop"}], **extra}
    if usage is not None:
        body["usage"] = usage
    return {"raw": body}


def answer(response: dict[str, Any], **kwargs: Any) -> Any:
    with ReplayServer([response]) as server:
        reply = client(server).complete(MESSAGES, **kwargs)
        return reply, server.requests[0]


def test_tool_calls_are_read_with_arguments_as_text_even_when_sent_as_an_object() -> None:
    reply, _ = answer(raw({"tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "write_file", "arguments": {"path": "x.py"}}},
        {"id": "b", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "y.py"}'}},
        {"id": "c", "type": "function"},  # no function: skipped
    ]}))
    assert [(c.name, c.arguments, c.id) for c in reply.tool_calls] == [
        ("write_file", '{"path": "x.py"}', "a"), ("read_file", '{"path": "y.py"}', "b")]


def test_the_legacy_function_call_field_counts_as_a_tool_call() -> None:
    reply, _ = answer(raw({"content": None, "function_call": {"name": "read_file", "arguments": "{}"}}))
    assert [(c.name, c.arguments, c.id) for c in reply.tool_calls] == [("read_file", "{}", "")]
    assert reply.content == ""


@pytest.mark.parametrize("body", [{"choices": []}, {"choices": "garbage"}, {"choices": [{"index": 0}]}])
def test_a_completion_without_a_usable_message_is_an_empty_reply_not_a_crash(body: dict[str, Any]) -> None:
    reply, _ = answer({"raw": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", **body,
                               "usage": {"prompt_tokens": 5, "completion_tokens": 0}}})
    assert (reply.tool_calls, reply.content) == ([], "")
    assert reply.usage == Usage(5, 0, 0, 5, True)  # a total the endpoint left out is the sum


def test_usage_keeps_cached_tokens_and_ignores_values_that_are_not_counts() -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": "many", "total_tokens": 130,
             "prompt_tokens_details": {"cached_tokens": 60}}
    reply, _ = answer(raw({"content": "hi"}, usage=usage))
    assert reply.usage == Usage(100, 0, 60, 130, True) and reply.content == "hi"


def test_a_completion_without_usage_says_so() -> None:
    assert _usage(None) == Usage() and not Usage().reported


@pytest.mark.parametrize(("choice", "sent"), [
    (None, "auto"), ("required", "required"), ("none", "none"),
    ("write_file", {"type": "function", "function": {"name": "write_file"}}),
])
def test_tool_choice_is_sent_as_the_api_expects(choice: str | None, sent: Any) -> None:
    tools = [{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object"}}}]
    _, request = answer(ANSWER, tools=tools, tool_choice=choice)
    assert request["tool_choice"] == sent and request["tools"] == tools
    _, plain = answer(ANSWER)
    assert "tools" not in plain and "tool_choice" not in plain


def test_config_takes_flags_first_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KG_LLM_MODEL", "KG_LLM_BASE_URL", "OPENAI_BASE_URL", "KG_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMError, match="no model"):
        LLMConfig.resolve()
    with pytest.raises(LLMError, match="no API key"):
        LLMConfig.resolve("gpt")
    local = LLMConfig.resolve("m", "http://127.0.0.1:8/v1", timeout=None, attempts=2)
    assert (local.api_key, local.timeout, local.attempts) == ("not-needed", 120.0, 2)  # None keeps the default
    monkeypatch.setenv("KG_LLM_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert (LLMConfig.resolve().model, LLMConfig.resolve("flag").model) == ("env-model", "flag")
    assert "sk-test" not in repr(LLMConfig.resolve())


def test_first_line_of_an_error_message() -> None:
    assert _first_line("  boom\nstack  ") == "boom"
    assert _first_line("") == _first_line(None) == "no message"
    assert len(_first_line("x" * 500)) == 200
