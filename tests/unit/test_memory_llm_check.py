"""The optional LLM check, with no database. LLM used: agent.testing.ReplayServer replaying recorded answers
through the real `openai` client (the check must work with any OpenAI-compatible endpoint, and never be needed)."""

from __future__ import annotations

from kg.agent.testing import ReplayServer

from kg.memory.llm_check import LLMCheck


def test_the_check_adds_what_the_model_says_and_is_silent_otherwise() -> None:
    answers = [{"content": '{"verdict": "contradiction", "reason": "polling vs pushing"}'},
               {"content": 'Sure! {"verdict": "compatible", "reason": "different things"}'},
               {"content": "I cannot tell."},
               {"status": 500}, {"status": 500}]
    with ReplayServer(answers) as server:
        check = LLMCheck(server.base_url, "replay", "test-key", timeout=5)
        assert check.compare("Poll the server for status", "The server pushes status") == (
            "contradiction", "polling vs pushing")
        assert check.compare("a", "b") is None
        assert check.compare("a", "b") is None
        assert check.compare("a", "b") is None  # a failing endpoint never blocks a write
        prompt = server.requests[0]["messages"][0]["content"]
    assert "A: Poll the server for status" in prompt and "B: The server pushes status" in prompt
