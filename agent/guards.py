"""When a run must stop although files remain: iteration cap, wall-clock cap, loops, error streaks, stalls.

Each guard returns the status and a one-line reason the run is stored with. Time spent waiting for the LLM is not
agent time: a slow endpoint must not look like a stuck agent, so the stall budget counts only the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    max_iterations: int = 800
    max_seconds: float = 2 * 3600.0
    stall_seconds: float = 900.0  # agent time (not LLM time) without a planned file getting done
    max_repeats: int = 3  # the same tool call with the same arguments, back to back
    max_errors: int = 5  # consecutive failed or malformed tool calls


@dataclass
class Guard:
    limits: Limits
    iterations: int = 0
    elapsed: float = 0.0  # wall-clock seconds of the run, over every session of it
    stall: float = 0.0  # agent seconds since the last progress
    repeats: int = 0
    errors: int = 0
    _last_call: str | None = field(default=None, repr=False)

    def before_turn(self) -> tuple[str, str] | None:
        """(status, reason) when no further turn may start."""
        if self.iterations >= self.limits.max_iterations:
            return "max_iterations", f"reached the iteration cap ({self.limits.max_iterations})"
        if self.elapsed >= self.limits.max_seconds:
            return "max_time", f"reached the time cap ({self.limits.max_seconds:g} s)"
        return None

    def after_turn(self, signature: str, ok: bool, progressed: bool, seconds: float,
                   llm_seconds: float) -> tuple[str, str] | None:
        """Account one finished turn; (status, reason) when the run must stop because of how it went."""
        self.iterations += 1
        self.elapsed += seconds
        self.stall = 0.0 if progressed else self.stall + max(0.0, seconds - llm_seconds)
        self.repeats = self.repeats + 1 if signature == self._last_call else 1
        self._last_call = signature
        self.errors = 0 if ok else self.errors + 1
        if self.repeats >= self.limits.max_repeats and not progressed:
            return "aborted", f"loop: the same call was made {self.repeats} times in a row ({signature[:80]})"
        if self.errors >= self.limits.max_errors:
            return "aborted", f"{self.errors} failed or malformed tool calls in a row"
        if self.stall > self.limits.stall_seconds:
            return "aborted", (f"stalled: {self.stall:.1f} s of agent time (LLM waits excluded) without a "
                               f"planned file done (budget {self.limits.stall_seconds:g} s)")
        return None

    def replay(self, signature: str, ok: bool) -> None:
        """Feed a turn of an earlier session into the loop and error detectors (resume)."""
        self.repeats = self.repeats + 1 if signature == self._last_call else 1
        self._last_call = signature
        self.errors = 0 if ok else self.errors + 1
