"""Free TCP ports for the Neo4j servers tests start, so a test never depends on a fixed port being free."""

from __future__ import annotations

import socket
from contextlib import ExitStack


def free_ports(count: int = 2) -> list[int]:
    """`count` different ports on 127.0.0.1 that nothing listens on now (the OS picks them)."""
    with ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
