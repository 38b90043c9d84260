"""A tiny OpenAI-compatible server that replays a recorded transcript, so tests and demos drive the real client.

A transcript is JSON (`{"llm": ..., "responses": [...]}`) or JSON Lines (one response a line, as `KG_LLM_RECORD`
writes them). Each response is picked for a request by its `when` text (a substring of the request's messages;
none matches anything), first unused first; when every matching response is used, the last one served is served
again, so a run killed after a response was sent but before it acted on it can be resumed on the same transcript.

A response is one of:
    {"tool": "write_file", "arguments": {...}}       one tool call (`"calls": [...]` for several)
    {"tool": "write_file", "raw_arguments": "{bad"}  arguments exactly as given (malformed JSON)
    {"content": "I am done"}                         text, no tool call
    {"raw": {...a chat.completion object...}}        served as recorded
    {"status": 500}                                  an HTTP error (429 for a rate limit)
    {"status": 429, "headers": {"Retry-After": "1"}}  with response headers
    {"body": "<html>…", "content_type": "text/html"} a 200 that is not a chat completion (a wrong --base-url)
plus optional `"delay": seconds` (the first time it is served only) and `"usage": {...}`. Without a recorded
usage, the server reports one computed with cl100k over the request (prompt), the arguments (completion) and the
system message (cached), like an endpoint with prefix caching would.

    python -m kg.agent.testing TRANSCRIPT [--port 8099]     serve it for `kg agent run --base-url http://…/v1`
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kg.agent.tokens import Tokenizer


def load_transcript(path: Path) -> list[dict[str, Any]]:
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    return data["responses"] if isinstance(data, dict) else data


class ReplayServer:
    """Serves a transcript on 127.0.0.1 (a free port by default); use as a context manager."""

    def __init__(self, responses: list[dict[str, Any]] | Path, port: int = 0) -> None:
        self.responses = load_transcript(responses) if isinstance(responses, Path) else list(responses)
        self.used = [False] * len(self.responses)
        self.requests: list[dict[str, Any]] = []  # every request body received
        self.served: list[dict[str, Any]] = []  # every usage reported, for ledger checks
        self._last: int | None = None
        self._lock = threading.Lock()
        self._tok = Tokenizer()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def pick(self, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """(response, first time served) for a request."""
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        with self._lock:
            self.requests.append(body)
            for i, r in enumerate(self.responses):
                if not self.used[i] and (not r.get("when") or r["when"] in text):
                    self.used[i], self._last = True, i
                    return r, True
            matching = [i for i, r in enumerate(self.responses) if not r.get("when") or r["when"] in text]
            if self._last is not None and self._last in matching:
                return self.responses[self._last], False
            if matching:
                return self.responses[matching[-1]], False
        return {"status": 500, "message": "replay transcript exhausted: no recorded response matches"}, True

    def completion(self, body: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
        if "raw" in r:
            response = json.loads(json.dumps(r["raw"]))
            response.setdefault("usage", self._usage(body, json.dumps(response.get("choices", []))))
            self.served.append(response["usage"])
            return response
        calls = r.get("calls") or ([r] if "tool" in r else [])
        tool_calls = [{"id": f"call_{i}", "type": "function", "function": {
            "name": c["tool"], "arguments": c["raw_arguments"] if "raw_arguments" in c else json.dumps(c.get(
                "arguments", {}))}} for i, c in enumerate(calls)]
        message: dict[str, Any] = {"role": "assistant", "content": r.get("content")}
        if tool_calls:
            message["tool_calls"] = tool_calls
        completion_text = (r.get("content") or "") + "".join(t["function"]["arguments"] for t in tool_calls)
        usage = r.get("usage") or self._usage(body, completion_text)
        self.served.append(usage)
        return {"id": f"replay-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "replay"), "choices": [{
                    "index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
                "usage": usage}

    def _usage(self, body: dict[str, Any], completion_text: str) -> dict[str, Any]:
        messages = body.get("messages", [])
        prompt = sum(self._tok.count(str(m.get("content") or "")) + 4 for m in messages) + 3
        prompt += self._tok.count(json.dumps(body["tools"])) if body.get("tools") else 0
        cached = self._tok.count(str(messages[0].get("content") or "")) if messages else 0
        completion = self._tok.count(completion_text) + 1
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                response, first = server.pick(body)
                if response.get("delay") and first:
                    time.sleep(float(response["delay"]))
                if "body" in response:
                    self._send_bytes(200, response["body"].encode(), response.get("content_type", "application/json"))
                    return
                if "status" in response:
                    self._send(int(response["status"]), {"error": {
                        "message": response.get("message", f"replayed HTTP {response['status']}"),
                        "type": "server_error" if response["status"] >= 500 else "rate_limit_error"}},
                        response.get("headers"))
                    return
                self._send(200, server.completion(body, response))

            def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._send_bytes(code, json.dumps(payload).encode(), "application/json", headers)

            def _send_bytes(self, code: int, data: bytes, content_type: str,
                            headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", content_type)
                    for name, value in (headers or {}).items():
                        self.send_header(name, str(value))
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def log_message(self, *_: Any) -> None:
                pass

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Replay a recorded LLM transcript as an OpenAI-compatible server.")
    parser.add_argument("transcript", type=Path)
    parser.add_argument("--port", type=int, default=8099)
    args = parser.parse_args()
    with ReplayServer(args.transcript, args.port) as server:
        print(f"replaying {args.transcript} at {server.base_url} (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
