"""The wire's stdout (:mod:`scratchfs.mcp.stdio`): whole reply lines written one at a time by a daemon thread, the
requests awaiting their replies, by id, and -- when a signal stops the server -- one error for each of them.

:class:`DaemonWorker` runs the wire's blocking reads and writes; :class:`LineWriter` writes the replies, notes the
requests handed on and not yet answered (:attr:`LineWriter.pending`, each under the id the client sent) and, on
:meth:`LineWriter.stop`, answers each of those with one error and writes nothing more (a reply that comes later for
the same request would be a second answer under its id).
"""

from __future__ import annotations

import asyncio
import errno
import os
import threading
from collections.abc import Callable
from typing import Any

from scratchfs.mcp import request_ids
from scratchfs.mcp.request_ids import correlation_key

CLIENT_GONE = (BrokenPipeError, ConnectionResetError)
"""What writing a reply raises when the client closed its end of the connection: the server stops (exit code 0)."""


class ClientNotReading(BrokenPipeError):
    """The client ended its input and read none of the replies since for :data:`~scratchfs.mcp.stdio.DRAIN_SECONDS`
    (a reply's write still blocked on a full stdout pipe): serving ends as for a client that closed its end, where
    the server waited for that write for ever."""


class WireFailed(OSError):
    """Writing a reply to the client failed for another reason than the client going away (stdout a full disk's
    file, an I/O error): ``strerror`` says what failed and where."""


class DaemonWorker:
    """One daemon thread that runs blocking calls one at a time, for :meth:`run` to await (asyncio: what
    ``anyio.run`` runs). The wire's reads and writes run so: the worker threads of ``anyio.to_thread`` are joined when
    the interpreter exits, and a read of stdin blocks until the client writes, a write until it reads -- a server
    stopped by a signal then stayed alive until its client closed the pipe. A cancelled wait leaves the call to
    finish on its own; its outcome is dropped."""

    def __init__(self, name: str) -> None:
        import queue

        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name=name, daemon=True).start()

    def _serve(self) -> None:
        while True:
            loop, future, func, args = self._jobs.get()
            try:
                outcome, error = func(*args), None
            except BaseException as exc:  # handed to the awaiting task
                outcome, error = None, exc
            try:
                loop.call_soon_threadsafe(_settle, future, outcome, error)
            except RuntimeError:  # the loop is closed: nobody awaits it
                pass

    async def run(self, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` in the worker's thread, after the calls before it.

        Raises:
            whatever ``func`` raises.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((loop, future, func, args))
        return await future


def _settle(future: Any, outcome: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(outcome)
    else:
        future.set_exception(error)


class LineWriter:
    """The wire's stdout: each :meth:`write` puts one whole reply line on ``fd`` (blocking writes in a worker thread,
    one at a time), so the SDK's replies and the transport's own never interleave.

    :attr:`pending` holds the ids of the requests handed on and not yet answered (one each: a request whose id is
    in flight is refused, not handed on, :func:`duplicate_refusal`); a request the client cancelled is not awaited."""

    def __init__(self, fd: int) -> None:
        import anyio

        self._file = os.fdopen(fd, "wb", closefd=False)
        self._lock = anyio.Lock()
        self._worker = DaemonWorker("scratchfs-mcp-wire-out")
        self.pending: dict[str, int | str] = {}  # requests not yet answered, their ids as sent, by correlation_key:
        # the SDK's (7 is "7")
        self._writing = 0  # replies being written (their requests no longer pending)
        self._queued = 0  # replies (and the SDK's notifications) given to write and not yet written
        self.stopped = False  # set by stop: nothing more is written

    def expect(self, request_id: int | str) -> None:
        """Note a request handed on: its reply is awaited by :meth:`drained` (a request whose id is one in flight
        is refused, never handed on: no id is pending twice)."""
        self.pending[correlation_key(request_id)] = request_id

    def forget(self, request_id: int | str) -> None:
        """Note a request the client cancelled (or one answered): no reply to await for its id."""
        self.pending.pop(correlation_key(request_id), None)

    def in_flight(self, request_id: int | str) -> bool:
        """Whether a request of this id -- or of one the SDK correlates with it, ``7`` for ``"7"``
        (:func:`~scratchfs.mcp.request_ids.correlation_key`) -- was handed on and is neither answered nor cancelled."""
        return correlation_key(request_id) in self.pending

    async def write(self, text: str, answers: bool = True) -> None:
        """Write ``text`` (one or more whole lines) and flush it; a reply to a pending request is noted (``answers``
        False: ``text`` answers no request handed on -- the transport's own replies to lines it did not hand on).

        Raises:
            BrokenPipeError, ConnectionResetError: the client closed its end (:data:`CLIENT_GONE`).
            WireFailed: any other failure to write.
        """
        data = text.encode("utf-8", "replace")
        answered = request_ids.answered_ids(text) if self.pending and answers else []
        self._queued += 1
        try:
            async with self._lock:
                if self.stopped:  # (the request was answered by stop already, or its server is going)
                    return
                for request_id in answered:  # (before the write: the client may send the id again once it reads it)
                    self.forget(request_id)
                self._writing += 1
                try:
                    await self._worker.run(self._put, data)
                finally:
                    self._writing -= 1
        finally:
            self._queued -= 1

    @property
    def backlog(self) -> int:
        """The requests handed on and not yet answered plus the lines given to :meth:`write` and not yet written
        (one reply may count in both for a moment: a bound on it errs low)."""
        return len(self.pending) + self._queued

    async def room(self, most: int) -> None:
        """Wait until :attr:`backlog` is under ``most`` (or the writer is stopped): the wire's reader waits so
        before it reads another line, so a client that sends requests and never reads their replies holds at most
        ``most`` of them in the server's memory (it is read again as it reads them); polled every 10 ms while
        full."""
        import anyio

        while self.backlog >= most and not self.stopped:
            await anyio.sleep(0.01)

    @property
    def blocked(self) -> bool:
        """Whether a reply is being written (or waits to be) -- after :meth:`drained` timed out, a write the client
        does not read."""
        return self._writing > 0 or self._queued > 0

    async def drained(self, seconds: float) -> None:
        """Wait until every pending request is answered and its reply written, or ``seconds`` passed."""
        import anyio

        with anyio.move_on_after(seconds):
            while self.pending or self._writing:
                await anyio.sleep(0.01)

    async def stop(self, reply_to: Callable[[int | str], str]) -> list[int | str]:
        """Answer each pending request with ``reply_to(its id as sent)`` (the JSON text of one reply), in one write,
        and write nothing after it: a reply the server makes later would be a second answer under the id. Returns
        the ids answered (the write may still be blocked on a client that reads nothing: bound the wait).

        Raises:
            BrokenPipeError, ConnectionResetError: the client closed its end (:data:`CLIENT_GONE`).
            WireFailed: any other failure to write.
        """
        async with self._lock:
            self.stopped = True
            ids = list(self.pending.values())
            self.pending.clear()
            if ids:
                await self._worker.run(self._put, "".join(reply_to(rid) + "\n" for rid in ids).encode("utf-8",
                                                                                                    "replace"))
        return ids

    def _put(self, data: bytes) -> None:
        try:
            self._file.write(data)
            self._file.flush()
        except CLIENT_GONE:
            raise
        except OSError as exc:
            raise WireFailed(exc.errno or errno.EIO,
                             f"{exc.strerror or exc} (writing replies to the MCP client, stdout)") from exc

    async def flush(self) -> None:
        """Nothing to do: :meth:`write` flushes (the SDK calls this after each reply)."""


__all__ = ["CLIENT_GONE", "ClientNotReading", "DaemonWorker", "LineWriter", "WireFailed"]
