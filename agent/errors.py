"""The agent's expected failures, all kg errors so the CLI prints them as one line.

    KgError
    ├── InputError
    │   ├── PlanError        a plan file that cannot be read or names bad paths
    │   ├── WorkspaceError   a path outside the workspace (`..`, absolute, symlink escape), or a
│   │                    workspace or file that cannot be created
    │   └── RunNotFound      `kg agent resume/status` with an unknown run id
    └── LLMError             the endpoint failed after retries, or is misconfigured
        └── LLMTimeout       the endpoint did not answer in time
"""

from __future__ import annotations

from kg.errors import InputError, KgError


class PlanError(InputError):
    """The plan cannot be parsed or names a path the agent may not write."""


class WorkspaceError(InputError):
    """A path outside the workspace, or a workspace folder or file that cannot be created."""


class RunNotFound(InputError):
    """No run with that id is in the graph."""


class LLMError(KgError):
    """The LLM endpoint refused, failed after retries or is not configured."""


class LLMTimeout(LLMError):
    """The LLM endpoint did not answer within the timeout, retries included."""
