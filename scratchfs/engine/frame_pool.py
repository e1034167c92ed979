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
this is a small pool of our own (its queue below), handing out the standard library's
:class:`concurrent.futures.Future` (callers wait and cancel as with an executor).

**The queue.** Calls wait in a :class:`collections.deque` (``append`` and ``popleft`` are single C calls) and a
:class:`threading.Lock` held while no wake-up is pending wakes the threads (``release`` wakes one, ``acquire`` with
a timeout waits): every step the caller's thread takes is one C call, so a ``KeyboardInterrupt`` from a signal
handler can fall between two of them but never inside one. :class:`queue.Queue` takes its ``Condition`` in Python
code, where an interrupt can land after the lock is taken and before the ``with`` block is set up
(https://bugs.python.org/issue29988): the lock stays taken and every later call hangs (a trial: 3 of 6 processes
interrupted at random during long reads hung in ``Queue.put``). :class:`queue.SimpleQueue` is all C, but on CPython
3.11 and 3.12 its ``get(timeout=...)`` blocks for ever when the waiting thread is woken for an item that another
thread took first and the deadline passed meanwhile (the time left, recomputed as a negative number, is passed on as
"no timeout"): a thread then never ended in an idle process (``tests/test_frame_pool.py``: 12 of 600 threads).
A lock's ``acquire(timeout=...)`` treats a time left that went negative as a timeout.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["IDLE_SECONDS", "FramePool", "frame_pool"]

IDLE_SECONDS = 2.0
"""Seconds a worker thread waits for a frame before it ends."""


class FramePool:
    """Up to ``workers`` daemon threads (named ``scratchfs-zstd``) running submitted calls in submission order.

    A thread is started by :meth:`submit` while fewer than ``workers`` are alive; each ends after ``idle_seconds``
    with nothing to do. Thread-safe.
    """

    def __init__(self, workers: int | None = None, idle_seconds: float = IDLE_SECONDS) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.idle_seconds = idle_seconds
        self.reset()

    def reset(self) -> None:
        """Forget every thread and queued call (in a ``fork()`` child, where the parent's threads do not exist)."""
        self._lock = threading.Lock()
        self._calls: deque = deque()  # (future, fn, args), oldest first
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

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` on a worker thread; its result or exception goes to the returned future (a future
        cancelled before a worker takes it is skipped).

        Every call is answered: when a thread cannot be started (the process is out of threads or memory, or the
        interpreter is shutting down) and none is alive to take the queued calls, they run in the calling thread
        before this returns. Raises nothing of its own (a ``KeyboardInterrupt`` met while starting a thread is
        raised again, after those calls ran)."""
        future: Future = Future()
        self._calls.append((future, fn, args))
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
        return future

    def _run_queued(self) -> None:
        """Run the queued calls in this thread until the queue is empty."""
        calls = self._calls
        while True:
            try:
                item = calls.popleft()
            except IndexError:
                return
            _run(*item)
            del item

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
                    item = calls.popleft()
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
                _run(*item)
                del item  # the caller's data is not kept alive by an idle thread
        finally:
            if counted:  # ended by an exception: the count stays true, so that a later call starts a thread
                with self._lock:
                    self._alive -= 1


def _run(future: Future, fn: Callable[..., Any], args: tuple) -> None:
    """Run one queued call into its future, unless it was cancelled."""
    if future.set_running_or_notify_cancel():
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # handed to the waiting caller, as an executor does
            future.set_exception(exc)


frame_pool = FramePool()
"""The process's pool (reset in a ``fork()`` child)."""

if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=frame_pool.reset)
