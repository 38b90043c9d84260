"""The replay server's matching and serving (kg.agent.testing), over real HTTP on 127.0.0.1.

No LLM: these test the server that stands in for one, since every replayed-transcript test relies on it picking the
right recorded response.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kg.agent.testing import ReplayServer, load_transcript


def post(server: ReplayServer, text: str, **body: Any) -> tuple[int, dict[str, str], bytes]:
    """POST a chat request whose user message is `text`; (status, headers, body)."""
    data = json.dumps({"model": "m", "messages": [{"role": "system", "content": "Be brief."},
                                                  {"role": "user", "content": text}], **body}).encode()
    request = urllib.request.Request(f"{server.base_url}/chat/completions", data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def said(server: ReplayServer, text: str) -> str | None:
    status, _, body = post(server, text)
    assert status == 200, body
    return json.loads(body)["choices"][0]["message"]["content"]


def test_a_response_is_picked_by_its_when_text_first_unused_first() -> None:
    responses = [{"when": "alpha", "content": "A1"}, {"when": "beta", "content": "B"},
                 {"when": "alpha", "content": "A2"}, {"content": "any"}]
    with ReplayServer(responses) as server:
        assert [said(server, t) for t in ("beta", "alpha", "alpha", "gamma")] == ["B", "A1", "A2", "any"]
        assert [r["messages"][1]["content"] for r in server.requests] == ["beta", "alpha", "alpha", "gamma"]


def test_when_all_matching_responses_are_used_the_last_served_is_served_again() -> None:
    with ReplayServer([{"when": "first", "content": "1"}, {"when": "second", "content": "2"}]) as server:
        assert [said(server, t) for t in ("first", "second", "second")] == ["1", "2", "2"]  # a resumed run asks again
        assert said(server, "first") == "1"  # the last served does not match: the last that does


def test_a_request_nothing_matches_gets_a_500_saying_the_transcript_is_exhausted() -> None:
    with ReplayServer([{"when": "only this", "content": "x"}]) as server:
        status, _, body = post(server, "something else")
    assert status == 500 and "replay transcript exhausted" in json.loads(body)["error"]["message"]


def test_tool_calls_and_raw_arguments_are_served_as_recorded() -> None:
    responses = [{"calls": [{"tool": "read_file", "arguments": {"path": "a.py"}},
                            {"tool": "write_file", "raw_arguments": "{bad"}]}]
    with ReplayServer(responses) as server:
        _, _, body = post(server, "go")
    choice = json.loads(body)["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in choice["message"]["tool_calls"]] == [
        ("read_file", '{"path": "a.py"}'), ("write_file", "{bad")]


def test_usage_is_the_recorded_one_or_counted_from_the_request() -> None:
    recorded = {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}
    tools = [{"type": "function", "function": {"name": "write_file", "description": "Write a file. " * 20}}]
    with ReplayServer([{"content": "x", "usage": recorded, "when": "recorded"}, {"content": "x " * 50}]) as server:
        assert json.loads(post(server, "recorded")[2])["usage"] == recorded
        plain = json.loads(post(server, "counted")[2])["usage"]
        with_tools = json.loads(post(server, "counted", tools=tools)[2])["usage"]
        assert server.served == [recorded, plain, with_tools]
    assert plain["total_tokens"] == plain["prompt_tokens"] + plain["completion_tokens"]
    assert 0 < plain["prompt_tokens_details"]["cached_tokens"] < plain["prompt_tokens"]  # the system message
    assert plain["completion_tokens"] >= 50  # fifty words of content
    assert with_tools["prompt_tokens"] > plain["prompt_tokens"] + 40  # the tool specs are prompt too


def test_status_headers_bodies_and_a_delay_on_first_serving_only() -> None:
    responses = [{"when": "limit", "status": 429, "headers": {"Retry-After": "3"}},
                 {"when": "html", "body": "<html>hi</html>", "content_type": "text/html"},
                 {"when": "slow", "content": "late", "delay": 1.5}]
    with ReplayServer(responses) as server:
        status, headers, body = post(server, "limit")
        assert (status, headers.get("Retry-After")) == (429, "3")
        assert json.loads(body)["error"]["type"] == "rate_limit_error"
        status, headers, body = post(server, "html")
        assert (status, headers["Content-Type"], body) == (200, "text/html", b"<html>hi</html>")
        began = time.perf_counter()
        assert said(server, "slow") == "late"
        first = time.perf_counter() - began
        began = time.perf_counter()
        assert said(server, "slow") == "late"
        again = time.perf_counter() - began
    assert first >= 1.5 > again


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_transcripts_load_from_json_or_json_lines(tmp_path: Path, suffix: str) -> None:
    responses = [{"content": "one"}, {"tool": "read_file", "arguments": {"path": "a.py"}}]
    path = tmp_path / f"t{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"llm": "recorded", "responses": responses}))
    else:
        path.write_text("".join(json.dumps(r) + "\n\n" for r in responses))
    assert load_transcript(path) == responses
    with ReplayServer(path) as server:
        assert said(server, "hello") == "one"
