"""A wall-clock bound on each S3 request's connection, its response body included: a server that sends a byte now
and then held a request for ever.

botocore's timeouts are per socket operation: a read timeout ends a wait for the next bytes, not the request. A
store (or a proxy in front of it) that sends one byte every 0.4 s -- under the read timeout of a third of
``busy_timeout`` -- held one ``read_handle`` past 200 s with a ``busy_timeout`` of 3 s (hostile44), while a store
that sends nothing failed within the bound. Here each HTTP connection of a client made by
:func:`scratchfs.engine.s3_client.make_client` is given a deadline when a request starts on it: the request's own
bound (``timeout``, from its first attempt) and one attempt's read timeout (so that a server that sends nothing is
still ended by that timeout, and said so) plus the time its payload takes at :data:`MIN_BYTES_PER_SECOND` (the
bytes it uploads, and the bytes of the range it asks for), and a :class:`Watchdog` thread shuts the connection's
socket down once that passes -- the blocked read then fails at once, botocore retries it only if another attempt
fits in the bound (else :class:`~scratchfs.engine.s3_client.NoAnswer`), and :func:`cut_short` tells the store's error
message that the request was cut at its bound. A connection that finished its request in time is given the next
request's deadline when it starts, and none while it waits in its pool.

Fork: a child starts with no watched connection and no watchdog thread (it starts its own when it needs one).
"""

from __future__ import annotations

import contextlib
import re
import socket
import sys
import threading
import time
from typing import Any

from scratchfs.foundation import forks

__all__ = ["MIN_BYTES_PER_SECOND", "Watchdog", "bound_connections", "cut_short", "payload_bytes", "set_deadline"]

MIN_BYTES_PER_SECOND = 1024 * 1024
"""The slowest transfer a request's deadline allows for its payload: 1 MiB/s (an 8 MiB part: 8 s past the bound)."""

_RANGE = re.compile(r"bytes=(\d{0,20})-(\d{0,20})")
_local = threading.local()  # the deadline of this thread's request (set by make_client's before-call handler)
_cut: dict[int, float] = forks.renewed_in_child(sys.modules[__name__], "_cut", dict)  # thread id -> seconds run


def set_deadline(deadline: float, started: float) -> None:
    """The current thread's request must end by ``deadline`` (``time.monotonic``); it began at ``started``."""
    _local.deadline, _local.started = deadline, started
    _cut.pop(threading.get_ident(), None)


def cut_short() -> float | None:
    """Seconds the current thread's last request had run when its watchdog shut its connection down, or ``None``
    when it was not (read once: a later call gives ``None``)."""
    return _cut.pop(threading.get_ident(), None)


def payload_bytes(body: Any, headers: Any) -> int:
    """The bytes a request sends (``body``) and asks for (its ``Range`` header, ``str`` or ``bytes``, any case), as far
    as they are known."""
    size = 0
    if isinstance(body, (bytes, bytearray, memoryview)):
        size = len(body)
    elif body is not None and hasattr(body, "seek") and hasattr(body, "tell"):
        with contextlib.suppress(OSError, ValueError):
            here = body.tell()
            size = body.seek(0, 2) - here
            body.seek(here)
    ranged = _RANGE.fullmatch(_header(headers, "range"))
    if ranged and ranged.group(2):
        size += int(ranged.group(2)) - int(ranged.group(1)) + 1 if ranged.group(1) else int(ranged.group(2))
    return size


def _header(headers: Any, name: str) -> str:
    """The value of header ``name`` (lower case) in ``headers``, any case, its name and value ``str`` or ``bytes``
    (botocore hands urllib3 bytes: ``{'Range': b'bytes=0-1023'}``), as text; ``""`` when not there."""
    try:
        pairs = list(headers.items()) if headers else []
    except (AttributeError, TypeError):
        return ""
    for key, value in pairs:
        key = key.decode("latin-1") if isinstance(key, (bytes, bytearray)) else str(key)
        if key.lower() == name:
            return value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else str(value)
    return ""


class Watchdog:
    """Shuts down the socket of a connection whose deadline passed (one daemon thread while any connection has a
    deadline: started by the first, ended when none is left)."""

    def __init__(self) -> None:
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)
        self._due: dict[Any, tuple[float, float, int, Any]] = forks.renewed_in_child(self, "_due", dict)
        self._wake = forks.renewed_in_child(self, "_wake", threading.Event)
        self._thread: threading.Thread | None = forks.renewed_in_child(self, "_thread", lambda: None)

    def arm(self, conn: Any, body: Any, headers: Any) -> None:
        """Connection ``conn`` starts a request of the current thread (sending ``body`` with ``headers``)."""
        deadline = getattr(_local, "deadline", None)
        if deadline is None:
            return
        deadline += payload_bytes(body, headers) / MIN_BYTES_PER_SECOND
        with self._lock:
            self._due[conn] = (deadline, _local.started, threading.get_ident(), None)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="scratchfs-s3-deadlines", daemon=True)
                self._thread.start()
        self._wake.set()

    def sent(self, conn: Any) -> None:
        """``conn`` sent its request: keep its socket, which its response reads after http.client let go of it (a
        reply that closes the connection: ``conn.sock`` is then ``None``)."""
        with self._lock:
            item = self._due.get(conn)
            if item is not None:
                self._due[conn] = (*item[:3], getattr(conn, "sock", None))

    def done(self, conn: Any) -> None:
        """``conn`` is back in its pool, its response read: no deadline until its next request. (Not when closed:
        http.client closes a connection whose reply ends it, while the reply's body is still to be read.)"""
        with self._lock:
            self._due.pop(conn, None)

    def _run(self) -> None:
        while True:
            self._wake.clear()
            now = time.monotonic()
            with self._lock:
                late = [(conn, item) for conn, item in self._due.items() if item[0] <= now]
                for conn, _ in late:
                    del self._due[conn]
                if not self._due and not late:  # (nothing to watch: the thread ends; the next arm starts one)
                    self._thread = None
                    return
                soonest = min((item[0] for item in self._due.values()), default=now)
                for conn, (_, started, thread, kept) in late:  # (under the lock: a connection done and armed
                    # for its next request meanwhile would have its new request cut)
                    sock = kept or getattr(conn, "sock", None)
                    if sock is None or sock.fileno() < 0:  # (closed meanwhile: a failed attempt's, not cut)
                        continue
                    _cut[thread] = now - started  # (before its reader wakes up to the shutdown)
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        _cut.pop(thread, None)
            self._wake.wait(max(soonest - time.monotonic(), 0.0) + 0.01)


def bound_connections(client: Any, watchdog: Watchdog) -> bool:
    """Give ``client``'s HTTP connections deadlines kept by ``watchdog``; False when this botocore keeps its
    connection pools where this does not know to look (then only botocore's own timeouts hold)."""
    session = getattr(getattr(client, "_endpoint", None), "http_session", None)
    pools = getattr(session, "_pool_classes_by_scheme", None)  # (the dict its pool managers share)
    if not isinstance(pools, dict) or not pools:
        return False
    for scheme, pool in list(pools.items()):
        base = pool.ConnectionCls

        def request(conn: Any, method: Any, url: Any, body: Any = None, headers: Any = None, *args: Any,
                    _base: Any = base, **kwargs: Any) -> Any:
            watchdog.arm(conn, body, headers)
            done = _base.request(conn, method, url, body, headers, *args, **kwargs)
            watchdog.sent(conn)
            return done

        def put_conn(pool_self: Any, conn: Any, _pool: Any = pool) -> Any:
            watchdog.done(conn)
            return _pool._put_conn(pool_self, conn)  # (urllib3's own, extended here)

        connection = type(f"Bounded{base.__name__}", (base,), {"request": request})
        pools[scheme] = type(f"Bounded{pool.__name__}", (pool,), {"ConnectionCls": connection, "_put_conn": put_conn})
    return True
