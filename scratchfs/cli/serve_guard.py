"""The HTTP connections ``scratchfs serve`` keeps: a bounded number, each given a deadline to send a whole request.

uvicorn (0.55) arms no timer on a connection until its first response is sent: a client that opens a connection and
sends a request line and headers slowly, or nothing at all (slowloris), holds it -- and a file descriptor -- for as
long as it likes, however many it opens. 400 such connections to a server limited to 200 descriptors made every
request time out and filled stderr with ``OSError: [Errno 24] Too many open files`` tracebacks from asyncio's accept;
the store's own files (SQLite, blobs) share that limit. :func:`guarded_h11` is uvicorn's h11 protocol with:

* a deadline (:data:`HEADER_SECONDS`) for each request's line and headers, from the opening of the connection or the
  end of the previous response: a connection that has not sent them by then is closed (a request being answered, or
  whose body is being read, is left alone);
* at most :data:`MAX_CONNECTIONS` open at once (fewer under a low descriptor limit, :func:`connection_bound`): one
  more closes the connection that has waited longest for a request's headers (a client that completes a request in
  milliseconds is not locked out by those that never do), or itself when every connection is busy with a request;
* at most :data:`BACKLOG` connections (fewer likewise) accepted in one turn of the event loop (asyncio accepts up
  to its backlog at once, before any is closed; uvicorn's default of 2,048 is more than 1,024 descriptors).

Source: uvicorn's ``H11Protocol`` (``connection_made``, ``on_response_complete``, ``connection_lost``, its
``connections`` set shared by the server) and h11's ``their_state`` (``IDLE`` until a request's headers are whole).
"""

from __future__ import annotations

from typing import Any

HEADER_SECONDS = 10.0
"""Seconds a connection has to send a request's line and headers (from its opening, or from the end of the
previous response) before it is closed."""
MAX_CONNECTIONS = 256
"""Most connections served at once, and at most a quarter of the process's descriptor limit (1,024 on many systems;
the store needs descriptors of its own): :func:`connection_bound`."""

BACKLOG = 128
"""The listening socket's backlog, and so the most connections asyncio accepts in one turn of its loop: at most an
eighth of the descriptor limit (:func:`connection_bound`)."""


def connection_bound(most: int = MAX_CONNECTIONS, share: int = 4) -> int:
    """``most``, but at most a ``share``-th of the process's soft limit of open descriptors (``RLIMIT_NOFILE``), and
    at least 8: the connections to serve at once (``connection_bound()``), or the backlog
    (``connection_bound(BACKLOG, 8)``: a burst of accepts lands before any is closed)."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(8, min(most, soft // share)) if soft != resource.RLIM_INFINITY else most


def guarded_h11(header_seconds: float = HEADER_SECONDS, max_connections: int | None = None) -> type:
    """uvicorn's h11 protocol class with a deadline of ``header_seconds`` for each request's headers and at most
    ``max_connections`` (default :func:`connection_bound`) open connections (see the module docstring); pass it as
    ``uvicorn.Config(http=...)``. Needs uvicorn and h11 (the web extra)."""
    bound = connection_bound() if max_connections is None else max_connections
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        """:class:`H11Protocol` with the guards of :mod:`scratchfs.cli.serve_guard`."""

        waiting_since: float | None = None
        deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()
            if len(self.connections) > bound:
                waiting = [other for other in self.connections if other is not self and other.waiting()]
                victim = min(waiting, key=lambda other: other.waiting_since) if waiting else self
                victim.transport.abort()

        def waiting(self) -> bool:
            """Whether this connection is waiting for a request's line and headers."""
            return (self.waiting_since is not None and self.conn.their_state is h11.IDLE
                    and not self.transport.is_closing())  # (one closed already, not yet gone from the set)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.waiting_since = self.loop.time()
            self.deadline = self.loop.call_later(header_seconds, self._expired)

        def _expired(self) -> None:
            self.deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.abort()

    return GuardedH11


__all__ = ["BACKLOG", "HEADER_SECONDS", "MAX_CONNECTIONS", "connection_bound", "guarded_h11"]
