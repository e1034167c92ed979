"""The process's frame threads: one per core, shared by every large write (compressing its frames) and every long read
(decompressing the frames ahead of it, :meth:`scratchfs.engine.seekable.SeekableReader.iter_frames`), started on
demand and ended after :data:`IDLE_SECONDS` without work.

**Why shared.** A large write compresses its frames on worker threads (zstd releases the GIL; see
:class:`scratchfs.engine.seekable.SeekableWriter`). Starting new threads for every write, each then making its own
zstd contexts, cost a 4 MiB spill several ms (``python bench/pool_costs.py``: a 4 MiB payload's 32 frames of 128 KiB
on 2 threads, 23.5 ms with new threads per write against 16.5 ms with kept ones at load 1.3; ``bench/README.md``,
"Issue 16, T2: one pool of frame workers for the process"). Threads kept between writes keep their compressors
(:func:`scratchfs.engine.zstd_contexts.compressor` is per thread).

**Why they end.** An idle process holds no thread of ours: a thread costs its stack, and ``fork()`` in a process with
threads is what Python 3.12 warns about (a fork child never uses the parent's workers: it starts its own, see
:meth:`FramePool.reset`). :class:`concurrent.futures.ThreadPoolExecutor` keeps its threads until ``shutdown``, so
this is a small pool of our own (its queue below), handing out a :class:`Call` for each call (callers wait and
cancel as with an executor's futures).

**The queue.** Calls wait in a :class:`collections.deque` (``append`` and ``popleft`` are single C calls) and a
:class:`threading.Lock` held while no wake-up is pending wakes the threads (``release`` wakes one, ``acquire`` with
a timeout waits): every step the caller's thread takes is one C call, so a ``KeyboardInterrupt`` from a signal
handler can fall between two of them but never inside one. :class:`queue.Queue` takes its ``Condition`` in Python
code, where an interrupt can land after the lock is taken and before the ``with`` block is set up
(https://bugs.python.org/issue29988): the lock stays taken and every later call hangs (a trial: 3 of 6 processes
interrupted at random during long reads hung in ``Queue.put``; ``python bench/pool_hazards.py interrupts``
checks the pool as it is). :class:`queue.SimpleQueue` is all C, but on CPython
3.11 and 3.12 its ``get(timeout=...)`` blocks for ever when the waiting thread is woken for an item that another
thread took first and the deadline passed meanwhile (the time left, recomputed as a negative number, is passed on as
"no timeout"): a thread then never ended in an idle process (``python bench/pool_hazards.py timeout``: 5-12 of 600
threads still waiting on 3.11.7, 0 with ``queue.Queue`` or this pool).
A lock's ``acquire(timeout=...)`` treats a time left that went negative as a timeout. For the same reason a
:class:`Call` is not a :class:`concurrent.futures.Future`, whose ``result`` and ``cancel`` take a ``Condition`` in
Python code: an interrupted wait could leave it taken, and the thread running that call would wait on it for ever
(the trial's pool, after random interrupts: 415 calls queued, both threads stuck).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

from scratchfs.foundation import forks

__all__ = ["IDLE_SECONDS", "Call", "FramePool", "frame_pool"]

IDLE_SECONDS = 2.0
"""Seconds a worker thread waits for a frame before it ends."""


_PENDING, _RUNNING, _CANCELLED, _FINISHED = range(4)


class Call:
    """One submitted call: its result (or exception) once a thread ran it, or its cancellation before one took it.

    Like :class:`concurrent.futures.Future`'s ``result``, ``cancel``, ``cancelled`` and ``done``, with locks taken
    only by C calls (see the module docstring). Thread-safe."""

    __slots__ = ("_done", "_error", "_guard", "_result", "_state", "args", "fn")

    def __init__(self, fn: Callable[..., Any], args: tuple) -> None:
        self.fn, self.args = fn, args
        self._guard = threading.Lock()
        self._done = threading.Lock()  # held until the call finished or was cancelled
        self._done.acquire()
        self._state = _PENDING
        self._result: Any = None
        self._error: BaseException | None = None

    def cancel(self) -> bool:
        """Cancel the call unless a thread took it; True when it is (now or already) cancelled."""
        with self._guard:
            if self._state == _PENDING:
                self._state = _CANCELLED
                self._done.release()
            return self._state == _CANCELLED

    def cancelled(self) -> bool:
        """Whether the call was cancelled."""
        return self._state == _CANCELLED

    def done(self) -> bool:
        """Whether the call finished or was cancelled."""
        return self._state in (_CANCELLED, _FINISHED)

    def result(self, timeout: float | None = None) -> Any:
        """The call's return value, waiting for it (at most ``timeout`` seconds).

        Raises:
            what the call raised; ``concurrent.futures.CancelledError`` (cancelled); ``TimeoutError`` (not done
            in time).
        """
        if not self.done():
            if not self._done.acquire(timeout=-1 if timeout is None else max(0.0, timeout)):
                raise TimeoutError("the call did not finish in time")
            self._done.release()  # (for any other waiter)
        if self._state == _CANCELLED:
            raise CancelledError()
        if self._error is not None:
            raise self._error
        return self._result

    def run(self) -> None:
        """Run the call in this thread, unless it was cancelled (a pool thread's part)."""
        with self._guard:
            if self._state != _PENDING:
                return
            self._state = _RUNNING
        try:
            self._result = self.fn(*self.args)
        except BaseException as exc:  # handed to the waiting caller, as an executor does
            self._error = exc
        self.fn = self.args = None  # the caller's data is not kept alive by the finished call
        self._state = _FINISHED
        self._done.release()


class FramePool:
    """Up to ``workers`` daemon threads (named ``scratchfs-zstd``) running submitted calls in submission order.

    A thread is started by :meth:`submit` while fewer than ``workers`` are alive; each ends after ``idle_seconds``
    with nothing to do. Thread-safe.
    """

    def __init__(self, workers: int | None = None, idle_seconds: float = IDLE_SECONDS) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.idle_seconds = idle_seconds
        self.reset()
        forks.renewed_in_child(self, "_calls", deque, then=FramePool.reset)  # (a fork() child: reset)

    def reset(self) -> None:
        """Forget every thread and queued call (in a ``fork()`` child, where the parent's threads do not exist)."""
        self._lock = threading.Lock()
        self._calls: deque = deque()  # the Calls no thread took yet, oldest first
        self._wake = threading.Lock()  # held while no wake-up is pending (see the module docstring)
        self._wake.acquire()
        self._alive = 0

    @property
    def queued(self) -> int:
        """Calls waiting for a thread now."""
        return len(self._calls)

    @property
    def alive(self) -> int:
        """Worker threads alive now."""
        return self._alive

    def submit(self, fn: Callable[..., Any], *args: Any) -> Call:
        """Run ``fn(*args)`` on a worker thread; its result or exception goes to the returned :class:`Call` (one
        cancelled before a worker takes it is skipped).

        Every call is answered: when a thread cannot be started (the process is out of threads or memory, or the
        interpreter is shutting down) and none is alive to take the queued calls, they run in the calling thread
        before this returns. Raises nothing of its own (a ``KeyboardInterrupt`` met while starting a thread is
        raised again, after those calls ran)."""
        call = Call(fn, args)
        self._calls.append(call)
        self._signal()
        with self._lock:
            start = self._alive < self.workers
            if start:
                self._alive += 1
        if start:
            try:
                threading.Thread(target=self._work, name="scratchfs-zstd", daemon=True).start()
            except BaseException as exc:
                with self._lock:
                    self._alive -= 1
                    orphaned = not self._alive
                if orphaned:  # no thread will take them (ours, and any another caller queued meanwhile)
                    self._run_queued()
                if not isinstance(exc, Exception):
                    raise
        return call

    def _run_queued(self) -> None:
        """Run the queued calls in this thread until the queue is empty."""
        calls = self._calls
        while True:
            try:
                call = calls.popleft()
            except IndexError:
                return
            call.run()

    def _signal(self) -> None:
        """Wake one waiting thread (or the next to wait), unless a wake-up is pending already."""
        try:
            self._wake.release()
        except RuntimeError:  # released already: a wake-up is pending
            pass

    def _work(self) -> None:
        calls, wake, counted = self._calls, self._wake, True
        try:
            while True:
                try:
                    call = calls.popleft()
                except IndexError:
                    if wake.acquire(timeout=self.idle_seconds):
                        continue  # woken (or a stale wake-up): look again
                    with self._lock:  # a call queued before this check is seen; one queued after it starts a thread
                        if not calls:
                            self._alive -= 1
                            counted = False
                            return
                    continue
                if calls:
                    self._signal()  # more are waiting: wake another thread for them
                _run(call)
                del call  # the caller's data is not kept alive by an idle thread
        finally:
            if counted:  # ended by an exception: the count stays true, so that a later call starts a thread
                with self._lock:
                    self._alive -= 1


def _run(call: Call) -> None:
    """Run one queued call (a seam for tests)."""
    call.run()


frame_pool = FramePool()
"""The process's pool (reset in a ``fork()`` child)."""
