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
  more closes the connection that has waited longest for a request's headers, or for its client to read what was
  sent to it, or that holds requests sent ahead of the answers (a client that completes a request in milliseconds
  is not locked out by those that never do), or itself when every connection is busy with a request -- answered
  first, when no answer of it has begun, with a 503 and ``Retry-After: 1`` (:func:`busy_answer`), before its
  request is read: a burst of 1,000 requests had 142 to 194 of them reset unanswered (``bench/serve_burst.py``).
  Without
  that, 300 connections each sending thousands of requests at once, pipelined -- no token needed, a 401 is an
  answer too -- kept every connection busy for minutes and every other client locked out; so did clients that
  never read the download they asked for (its writing paused by asyncio's flow control, which no header deadline
  reaches);
* a deadline (:data:`STALL_SECONDS`) for a client to take any of an answer whose writing is paused: a connection
  whose client has taken none of it in that time (:func:`unsent`) is closed, and what it held -- one of the 16
  download slots, its blob open and its frames read ahead -- comes back (a client holding the token kept every slot
  busy for as long as it stayed connected, reading nothing: every other download was a 503);
* a stop that waits for no client that does not read, and at most :data:`SHUTDOWN_SECONDS` for the requests
  being answered;
* at most :data:`BACKLOG` connections (fewer likewise) accepted in one turn of the event loop (asyncio accepts up
  to its backlog at once, before any is closed; uvicorn's default of 2,048 is more than 1,024 descriptors).

Source: uvicorn's ``H11Protocol`` (``connection_made``, ``on_response_complete``, ``connection_lost``,
``pause_writing`` and ``resume_writing``, its ``connections`` set shared by the server) and h11's ``their_state``
(``IDLE`` until a request's headers are whole).
"""

from __future__ import annotations

import functools
from typing import Any

HEADER_SECONDS = 10.0
"""Seconds a connection has to send a request's line and headers (from its opening, or from the end of the
previous response) before it is closed."""
MAX_CONNECTIONS = 256
"""Most connections served at once, and at most a quarter of the process's descriptor limit (1,024 on many systems;
the store needs descriptors of its own): :func:`connection_bound`."""

STALL_SECONDS = 30.0
"""Seconds an answer's writing may stay paused (its client's window and the server's buffer full) without the client
taking a byte of it before the connection is closed. A client reading slowly keeps its connection: any progress in
each such period does. Read when :func:`guarded_h11` is called."""

SHUTDOWN_SECONDS = 10
"""Seconds a stop (SIGTERM, SIGINT, SIGHUP) waits for the requests being answered to end before it cancels them
(uvicorn's default waits for ever: a download whose client read nothing kept ``scratchfs serve`` from stopping
until SIGKILL). A connection whose client does not read what is written to it is closed at once when the stop
begins, or as soon as its writing pauses; a read's own time limit (``pattern_timeout``, 5 s) ends the longest
request well within the limit."""

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
    ``max_connections`` (default :func:`connection_bound`) open connections, whose paused answers are closed when
    their client takes nothing of them for :data:`STALL_SECONDS` (see the module docstring); pass it as
    ``uvicorn.Config(http=...)``. Needs uvicorn and h11 (the web extra)."""
    bound = connection_bound() if max_connections is None else max_connections
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(_Stalls, H11Protocol):
        """:class:`H11Protocol` with the guards of :mod:`scratchfs.cli.serve_guard`."""

        waiting_since: float | None = None
        stopping = False
        deadline: Any = None
        stall_seconds = STALL_SECONDS

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()
            if len(self.connections) > bound:
                _one_too_many(self, h11, bound)

        def idle_since(self) -> float | None:
            """:func:`idle_since` of this connection."""
            return idle_since(self, h11)

        def shutdown(self) -> None:
            super().shutdown()
            self.stopping = True
            self.transport.abort() if self.stalled_since is not None else None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.answered = True
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self.deadline, _ = None, self.deadline and self.deadline.cancel()
            _watch_stall(self, None)
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


class _Stalls:
    """The writing side of :func:`guarded_h11`'s protocol (a mixin before uvicorn's ``H11Protocol``, which is
    imported only to serve): when an answer's writing pauses, a stop closes the connection at once, and
    :func:`_watch_stall` closes it once its client takes nothing for ``stall_seconds``."""

    stalled_since: float | None = None
    stall_timer: Any = None
    stall_seconds: float = STALL_SECONDS
    stopping: bool = False
    answered = False  # (a response of this connection ended: its client may be sending the next request)

    def pause_writing(self) -> None:  # (the client reads slower than the answer is written, or not at all)
        super().pause_writing()  # type: ignore[misc]
        self.stalled_since = self.loop.time()  # type: ignore[attr-defined]
        self.shutdown() if self.stopping else None  # type: ignore[attr-defined]  # (a stop waits for no such client)
        _watch_stall(self, self.stall_seconds)

    def resume_writing(self) -> None:
        super().resume_writing()  # type: ignore[misc]
        self.stalled_since = _watch_stall(self, None)


def _watch_stall(protocol: Any, seconds: float | None, left: int | None = None) -> None:
    """Close the connection of ``protocol`` (a :func:`guarded_h11` instance whose writing is paused) ``seconds``
    from now if its client has taken nothing by then of the ``left`` bytes unsent now (None: :func:`unsent`'s
    count), else look again ``seconds`` later; ``seconds`` None: stop looking (its writing resumed, or it is gone)."""
    if protocol.stall_timer is not None:
        protocol.stall_timer.cancel()
    protocol.stall_timer = None
    if seconds is None:
        return
    before = unsent(protocol.transport) if left is None else left

    def look() -> None:
        protocol.stall_timer = None
        if protocol.stalled_since is None or protocol.transport.is_closing():
            return
        now = unsent(protocol.transport)
        _watch_stall(protocol, seconds, now) if now < before else protocol.transport.abort()

    protocol.stall_timer = protocol.loop.call_later(seconds, look)


def unsent(transport: Any) -> int:
    """:func:`scratchfs.web.download.unsent`: bytes written to ``transport`` its client has not taken yet."""
    from scratchfs.web.download import unsent as of

    return of(transport)


def _one_too_many(newcomer: Any, h11: Any, bound: int) -> None:
    """Close the connection that has waited on its client longest (:func:`idle_since`), else ``newcomer``, one of
    ``bound`` too many: a fresh one whose request is not read yet gets :func:`busy_answer` first (a burst of
    requests is answered 503 with ``Retry-After``, not reset); one in the middle of an answer is closed at once, and
    so is one kept alive after an answer (a client that sends its next request as it closes retries on the reset,
    where a 503 would be taken as the answer to that request)."""
    idle = [(since, other) for other in newcomer.connections if other is not newcomer
            for since in (other.idle_since(),) if since is not None]
    going = min(idle, key=lambda pair: pair[0])[1] if idle else newcomer
    fresh = not going.answered and going.stalled_since is None  # (a kept-alive one: a client retries its reset)
    if fresh and going.conn.their_state is h11.IDLE and going.conn.our_state is h11.IDLE:
        going.transport.write(busy_answer(bound))
        going.transport.close()  # (once what is written has gone out)
    else:
        going.transport.abort()


@functools.cache
def busy_answer(bound: int) -> bytes:
    """The whole answer -- status line, headers, body -- written to a connection closed because ``bound`` are open:
    ``503 Service Unavailable`` with ``Retry-After: 1``, ``Connection: close`` and the security headers of every
    answer of the inspector (:data:`~scratchfs.web.security.SECURITY_HEADERS`), its body one line of text."""
    from scratchfs.web.security import SECURITY_HEADERS

    body = (f"503 busy: this server has {bound} connections open, the most at once: retry in a "
            "second\n").encode()
    head = [b"HTTP/1.1 503 Service Unavailable", b"content-type: text/plain; charset=utf-8", b"retry-after: 1",
            b"connection: close", b"content-length: " + str(len(body)).encode(),
            *(name + b": " + value for name, value in SECURITY_HEADERS)]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def idle_since(protocol: Any, h11: Any) -> float | None:
    """Since when (``protocol.loop.time()`` seconds) the connection of ``protocol`` (a :func:`guarded_h11`
    instance; ``h11`` the module) waits on its client -- for a request's line and headers, or to read the answer
    being written (its writing paused) -- or holds requests its client sent ahead of the answers (pipelining, which
    no browser does: h11 keeps the next request while this one is answered); None while the server works on a
    request of it, or once it is closing (closed already, not yet gone from the server's set)."""
    if protocol.transport.is_closing():
        return None
    if protocol.stalled_since is not None:
        return protocol.stalled_since
    state = protocol.conn.their_state
    ahead = state is h11.DONE and bool(protocol.conn.trailing_data[0])
    return protocol.waiting_since if ahead or state is h11.IDLE else None


__all__ = ["BACKLOG", "HEADER_SECONDS", "MAX_CONNECTIONS", "SHUTDOWN_SECONDS", "STALL_SECONDS", "busy_answer",
           "connection_bound", "guarded_h11", "idle_since", "unsent"]
