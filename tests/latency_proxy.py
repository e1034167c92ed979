"""A TCP proxy on loopback that gives a server a network's latency: every byte the server sends reaches the client
``delay`` seconds after the proxy received it (bytes received together are sent together, not one delay after
another). An operation that waits for the server N times then takes N delays more than it would: its round trips are
its time over the delay, rounded down when the delay is much longer than the operation's own time. What the delay
counts is what latency costs a client: statements sent in one pipelined batch cost one delay, whatever TCP does with
their bytes, where the same statements one by one cost one each (a count of the client's sends cannot tell: a server
answers a batch's first statements while the rest are on their way). For tests/test_fleet_round_trips.py."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time

__all__ = ["LatencyProxy"]


class LatencyProxy:
    """Forwards ``127.0.0.1:<port>`` to ``(host, port)``, each reply late by :attr:`delay` seconds while
    :meth:`round_trips` runs (at once otherwise: a store opens and warms up at loopback speed). A context manager:
    leaving it closes the listener and every connection."""

    def __init__(self, host: str, port: int, delay: float) -> None:
        self.target, self.delay, self._late = (host, port), delay, False
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def round_trips(self, operation) -> int:
        """Run ``operation()`` and return how many delays its wall time holds (rounded down)."""
        self._late = True
        try:
            started = time.perf_counter()
            operation()
            return int((time.perf_counter() - started) / self.delay)
        finally:
            self._late = False

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
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

    def __enter__(self) -> LatencyProxy:
        return self

    def __exit__(self, *exc) -> None:
        self.listener.close()
        with self._lock:
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.close()
