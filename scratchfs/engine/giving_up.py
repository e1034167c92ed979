"""Calls given up: a read whose caller is gone (an MCP request the client cancelled, or one still running when the
server's input ends and no reply can be sent) stops at once instead of running to its time limit.

A pattern search or a jq, HTML or regex worker call runs in a thread for up to its time limit (``pattern_timeout``, 5 s
by default; a jq read's); cancelling the ``await`` that waits for that thread stops nothing in it. A face runs such a
call through :class:`GivenUp`: :meth:`GivenUp.run` in the thread, :meth:`GivenUp.cancel` from the caller's side once the
caller is cancelled. Cancelling kills the worker processes busy with the call (it sees them die, as at
:func:`~scratchfs.engine.worker_pipe.kill_workers`), and until the call ends :func:`given_up` is true in its thread: the
pattern engine then raises TimeoutError at its next step instead of running on in the thread
(:mod:`scratchfs.engine.pattern_worker`), and no worker is taken for it (:meth:`~scratchfs.engine.worker_pipe.Pool.run`
raises TimeoutError, also when it was waiting for a busy pool's worker to come free: it is woken). While the call runs
its thread is in :data:`~scratchfs.engine.worker_pipe.WATCHED`: a regex call of it runs in the thread for at most
:data:`~scratchfs.engine.pattern_worker.WATCHED_SLICE_SECONDS` of CPU time before it moves to a worker, which a cancel
kills -- or waits for one while every one is busy, a wait a cancel ends --, so a cancel stops it within that. What the
call returns then is thrown away by its caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from scratchfs.engine.worker_pipe import GIVEN_UP, POOLS, WATCHED, given_up

T = TypeVar("T")


def kill_busy(thread: int) -> int:
    """Kill the worker processes busy with a call of the thread of ident ``thread`` (each is reaped and discarded by
    that call, which sees it die), and wake a call of it waiting for a busy pool's worker to come free (it gives up,
    not run, when the thread is in :data:`~scratchfs.engine.worker_pipe.GIVEN_UP`). Returns how many were killed."""
    killed = 0
    for pool in list(POOLS):
        with pool.cond:
            busy = [worker for worker in pool.workers if worker.thread == thread]
            pool.cond.notify_all()  # (a call of the thread waiting for a busy worker to come free: it gives up)
        for worker in busy:
            try:
                worker.process.kill()
                killed += 1
            except OSError:  # (gone already)
                pass
    return killed


class GivenUp:
    """One call that its caller may give up from another thread (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: int | None = None  # the thread running the call, while it runs
        self.cancelled = False
        self.finished = threading.Event()
        """Set when :meth:`run` has returned or raised (or was told to give up before it began)."""

    def run(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` in the calling thread, which :meth:`cancel` may give up.

        Raises:
            whatever ``func`` raises; TimeoutError when the call was given up before it began (not run).
        """
        thread = threading.get_ident()
        with self._lock:
            if self.cancelled:
                self.finished.set()
                raise TimeoutError("the call was given up before it began")
            self._thread = thread
            WATCHED.add(thread)
        try:
            return func(*args)
        finally:
            with self._lock:  # (after this, a cancel no longer touches the thread: it may run another call)
                self._thread = None
                GIVEN_UP.discard(thread)
                WATCHED.discard(thread)
            self.finished.set()

    def cancel(self) -> bool:
        """Give the call up: its busy workers are killed now and its thread's next step stops it; a call not begun
        never runs. Returns whether it is running (then :attr:`finished` is set soon; else it never runs)."""
        with self._lock:
            self.cancelled = True
            thread = self._thread
            if thread is None:
                return False
            GIVEN_UP.add(thread)
            kill_busy(thread)
        return True


__all__ = ["GivenUp", "given_up", "kill_busy"]
