"""A TCP proxy on loopback that gives a server a network's latency: every byte the server sends reaches the client
``delay`` seconds after the proxy received it (bytes received together are sent together, not one delay after
another). An operation that waits for the server N times then takes N delays more than it would: its round trips are
its time over the delay, rounded down when the delay is much longer than the operation's own time. What the delay
counts is what latency costs a client: statements sent in one pipelined batch cost one delay, whatever TCP does with
their bytes, where the same statements one by one cost one each (a count of the client's sends cannot tell: a server
answers a batch's first statements while the rest are on their way). For tests/test_fleet_round_trips.py.

Beside it, on the same :class:`ForwardingProxy` (a listener on loopback, two threads a connection, closed together):
:class:`DripProxy`, a server that answers a byte at a time (tests/test_hostile44_s3_drip.py), and
:class:`HangingProxy`, a server that stops answering mid-upload (tests/test_fleet_outages.py)."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time

__all__ = ["DripProxy", "ForwardingProxy", "HangingProxy", "LatencyProxy"]


class ForwardingProxy:
    """Forwards ``127.0.0.1:<port>`` (:attr:`port`, :attr:`url` its ``http://`` URL) to ``(host, port)``: each
    connection accepted opens one to the server and two threads run :meth:`forward`, the client's bytes to the
    server and the server's replies to the client. A context manager: leaving it, or :meth:`close`, closes the
    listener and every connection. :attr:`nodelay` sets TCP_NODELAY on both sockets of a connection."""

    nodelay = False

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def forward(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        """Send what ``src`` receives to ``dst`` until ``src`` ends (``replies``: ``src`` is the server), then end
        ``dst``'s sending side. Subclasses change what is sent, and when."""
        with contextlib.suppress(OSError):
            while data := src.recv(1 << 16):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            if self.nodelay:
                for s in (client, server):
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._sockets += [client, server]
            threading.Thread(target=self.forward, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self.forward, args=(server, client, True), daemon=True).start()

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LatencyProxy(ForwardingProxy):
    """Forwards ``127.0.0.1:<port>`` to ``(host, port)``, each reply late by :attr:`delay` seconds while
    :meth:`round_trips` runs (at once otherwise: a store opens and warms up at loopback speed). A context manager:
    leaving it closes the listener and every connection."""

    nodelay = True

    def __init__(self, host: str, port: int, delay: float) -> None:
        self.delay, self._late = delay, False
        super().__init__(host, port)

    def round_trips(self, operation) -> int:
        """Run ``operation()`` and return how many delays its wall time holds (rounded down)."""
        self._late = True
        try:
            started = time.perf_counter()
            operation()
            return int((time.perf_counter() - started) / self.delay)
        finally:
            self._late = False

    def forward(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        """Forward ``src`` to ``dst``; the server's ``replies`` each sent :attr:`delay` seconds after they arrived
        while late (a reader thread stamps the chunks as they come, so chunks that came together leave together)."""
        chunks: queue.SimpleQueue = queue.SimpleQueue()

        def read() -> None:
            while True:
                try:
                    data = src.recv(1 << 20)
                except OSError:
                    data = b""
                chunks.put((time.monotonic(), data))
                if not data:
                    return

        threading.Thread(target=read, daemon=True).start()
        while True:
            arrived, data = chunks.get()
            if not data:
                with contextlib.suppress(OSError):
                    dst.shutdown(socket.SHUT_WR)
                return
            wait = arrived + self.delay - time.monotonic() if replies and self._late else 0
            if wait > 0:
                time.sleep(wait)
            try:
                dst.sendall(data)
            except OSError:
                return


class DripProxy(ForwardingProxy):
    """While :attr:`head` (bytes) is set, each chunk of a reply (up to 64 KiB received at once) is sent ``head`` bytes
    at once, then one byte every :attr:`drip_every` seconds (0.4) for up to :attr:`give_up` seconds, then the rest;
    with :attr:`head` None, at once. What the client sends goes at once."""

    def __init__(self, host: str, port: int, give_up: float, drip_every: float = 0.4) -> None:
        self.head: int | None = None
        self.give_up, self.drip_every = give_up, drip_every
        super().__init__(host, port)

    def forward(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(1 << 16):
                head = self.head if replies else None
                if head is None:
                    dst.sendall(data)
                    continue
                dst.sendall(data[:head])
                until, at = time.monotonic() + self.give_up, head
                while at < len(data) and time.monotonic() < until:
                    time.sleep(self.drip_every)
                    dst.sendall(data[at : at + 1])
                    at += 1
                dst.sendall(data[at:])
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


class HangingProxy(ForwardingProxy):
    """Once :attr:`hang` (a :class:`threading.Event`) is set, stops passing on what clients send (its connections
    stay open, unanswered): a store that hangs in the middle of an upload. Replies pass at once; an ended side is
    not passed on (no shutdown)."""

    def __init__(self, host: str, port: int) -> None:
        self.hang = threading.Event()
        super().__init__(host, port)

    def forward(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        try:
            while data := src.recv(65536):
                if replies or not self.hang.is_set():
                    dst.sendall(data)
        except OSError:
            pass
