"""A regex engine that stops on time: a match that outlasts a short slice in the calling thread moves to a worker
process, which is killed at the search's deadline (wall clock).

Why not the ``regex`` package's own ``timeout`` alone: it counts the *process's* CPU time (C ``clock()``), so a
search on a machine that gives the process less than a core ends late by that factor (measured: 3.9 s for a 2 s
limit under a load of 5 on 2 cores), and a thread cannot be stopped from outside. A process can. Each call runs
first in the calling thread with ``concurrent=True`` (the GIL released, so other threads go on) and a time limit of a
tenth of the search's limit, at most :data:`SLICE_SECONDS`; a call that needs longer is run again from its start in
a worker process, and the search's later calls go there too until one of them is quick again (no buffer copies for
a search of many short calls). Normal searches never leave the thread. A search ends at most a slice (times the
CPU starvation of the process) after its deadline.

Why a fresh interpreter (this file run by ``sys.executable``, which imports only ``regex``), not ``fork``: the store
holds SQLite connections and file locks, and a forked child that frees them (CPython clears other threads' states
after ``fork``) can checkpoint or unlink the parent's WAL; SQLite forbids carrying a connection across ``fork()``.
``multiprocessing``'s spawn would re-import the parent's ``__main__`` (the CLI) in every worker. The worker gets
only the pattern's core syntax and the bytes to match (length-prefixed pickles over its stdin and stdout, between
this process and its own child), never a path or a descriptor. At most :data:`MAX_WORKERS` workers run; when all
are busy a call stays in its thread with the remaining time as its limit. Idle workers are stopped at exit, and a
worker whose parent is gone reads end-of-file and exits.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Any

import regex

__all__ = ["FLAGS", "MAX_WORKERS", "SLICE_SECONDS", "Engine", "Span", "anchored_match", "first_match", "workers"]

SLICE_SECONDS = 0.5
"""Longest time limit of a call in the calling thread, in seconds of the process's CPU time, before it moves to a
worker."""
MAX_WORKERS = 4
"""Most worker processes alive at once (idle ones are kept for the next slow search)."""
FLAGS = regex.VERSION0 | regex.MULTILINE

Span = tuple[int, int, bool]  # start, end, partial


def first_match(compiled: regex.Pattern, buf: bytes | bytearray, pos: int, endpos: int, partial: bool, limit: int,
                timeout: float | None) -> Span | None:
    """The first non-empty (or partial) match of ``compiled`` in ``buf[pos:endpos]`` that starts before ``limit``,
    as ``(start, end, partial)``, or ``None``. Raises TimeoutError past ``timeout`` (seconds of CPU time)."""
    for m in compiled.finditer(buf, pos, endpos, partial=partial, timeout=timeout, concurrent=True):
        start, end = m.span()
        if start >= limit:
            return None
        if end > start or m.partial:
            return start, end, m.partial
    return None


def anchored_match(compiled: regex.Pattern, buf: bytes | bytearray, start: int, endpos: int, partial: bool,
                   timeout: float | None) -> Span | None:
    """The match of ``compiled`` that starts at ``start`` (``regex.match``), as ``(start, end, partial)``, or
    ``None``. Raises TimeoutError past ``timeout`` (seconds of CPU time)."""
    m = compiled.match(buf, start, endpos, partial=partial, timeout=timeout, concurrent=True)
    return None if m is None else (m.start(), m.end(), m.partial)


_OPERATIONS = {"first": first_match, "match": anchored_match}


class Engine:
    """Runs :func:`first_match` and :func:`anchored_match` for one compiled pattern until ``deadline``.

    Args:
        compiled: the pattern (compiled with :data:`FLAGS`).
        deadline: ``time.monotonic()`` value after which every call raises TimeoutError.
        timeout: the search's time limit in seconds; a call's slice in the thread is a tenth of it, at most
            :data:`SLICE_SECONDS`.
    """

    def __init__(self, compiled: regex.Pattern, deadline: float, timeout: float) -> None:
        self.compiled = compiled
        self.deadline = deadline
        self.slice = min(SLICE_SECONDS, timeout / 10)
        self.remote = False  # a call outlasted its slice: this search's calls run in a worker

    def first(self, buf: bytearray, pos: int, endpos: int, partial: bool, limit: int) -> Span | None:
        """:func:`first_match` under the deadline. Raises TimeoutError."""
        return self._call("first", buf, (pos, endpos, partial, limit))

    def match(self, buf: bytearray, start: int, endpos: int, partial: bool) -> Span | None:
        """:func:`anchored_match` under the deadline. Raises TimeoutError."""
        return self._call("match", buf, (start, endpos, partial))

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    def _call(self, operation: str, buf: bytearray, args: tuple) -> Span | None:
        left = self._left()
        if not self.remote:
            try:
                return _OPERATIONS[operation](self.compiled, buf, *args, timeout=min(self.slice, left))
            except TimeoutError:
                if left <= self.slice:
                    raise
                self.remote = True
            left = self._left()
        try:
            worker = _POOL.take()
        except OSError:  # no process to be had (descriptors, memory): the thread's own limit
            worker = None
        if worker is None:  # every worker is busy: the thread's own limit, as before workers
            return _OPERATIONS[operation](self.compiled, buf, *args, timeout=left)
        began = time.monotonic()
        try:
            result = worker.call((self.compiled.pattern, operation, bytes(buf), args, left), self.deadline)
        except (EOFError, OSError, pickle.UnpicklingError):  # the worker died: the thread's own limit
            _POOL.discard(worker)
            return _OPERATIONS[operation](self.compiled, buf, *args, timeout=self._left())
        except BaseException:  # TimeoutError (the deadline): the worker is stopped
            _POOL.discard(worker)
            raise
        _POOL.give(worker)
        if result == "timeout":
            raise TimeoutError
        if time.monotonic() - began < self.slice / 2:  # a quick call: the next one tries the thread again (no copy)
            self.remote = False
        return result


class _Worker:
    """One worker process (this file run by the same interpreter) and the pipes to it."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _BOOT, __file__], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, bufsize=0, close_fds=True)

    def call(self, request: tuple, deadline: float) -> Any:
        """Send ``request``, wait for the answer until ``deadline``. Raises TimeoutError (the worker must then be
        discarded), EOFError or OSError (it died)."""
        _write_frame(self.process.stdin, pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
        return pickle.loads(_read_frame(self.process.stdout, deadline))

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(5)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


class _Pool:
    """Idle workers, and how many are alive (under a lock: searches run in many threads)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.idle: list[_Worker] = []
        self.alive = 0

    def take(self) -> _Worker | None:
        with self.lock:
            if self.idle:
                return self.idle.pop()
            if self.alive >= self.size:
                return None
            self.alive += 1
        try:
            return _Worker()
        except BaseException:
            with self.lock:
                self.alive -= 1
            raise

    def give(self, worker: _Worker) -> None:
        with self.lock:
            self.idle.append(worker)

    def discard(self, worker: _Worker) -> None:
        worker.stop()
        with self.lock:
            self.alive -= 1


_POOL = _Pool(MAX_WORKERS)


def workers() -> tuple[int, int]:
    """``(alive, idle)``: worker processes running, and those of them waiting for a call."""
    with _POOL.lock:
        return _POOL.alive, len(_POOL.idle)


def _write_frame(pipe: Any, data: bytes) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    fd = pipe.fileno()
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    out = bytearray()
    while len(out) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            poller = select.poll()  # not select.select: descriptors past 1024 are common in a busy server
            poller.register(fd, select.POLLIN)
            if left <= 0 or not poller.poll(max(1, int(left * 1000))):
                raise TimeoutError
        chunk = os.read(fd, size - len(out))
        if not chunk:
            raise EOFError("the worker closed its pipe")
        out += chunk
    return bytes(out)


def _read_frame(pipe: Any, deadline: float | None) -> bytes:
    fd = pipe.fileno()
    (size,) = struct.unpack("<Q", _read_exactly(fd, 8, deadline))
    return _read_exactly(fd, size, deadline)


@atexit.register
def _stop_idle_workers() -> None:
    with _POOL.lock:
        idle, _POOL.idle = _POOL.idle, []
    for worker in idle:
        worker.stop()


def serve() -> None:
    """The worker's loop over stdin and stdout: ``(core, operation, buf, args, timeout)`` in, a span, ``None`` or
    ``"timeout"`` out; returns when stdin closes (the parent is gone or stopped it)."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    cache: dict[bytes, regex.Pattern] = {}
    while True:
        try:
            core, operation, buf, args, timeout = pickle.loads(_read_frame(source, None))
        except (EOFError, OSError):
            return
        compiled = cache.get(core)
        if compiled is None:
            if len(cache) >= 8:
                cache.clear()
            compiled = cache[core] = regex.compile(core, FLAGS, cache_pattern=False)
        try:
            result: Any = _OPERATIONS[operation](compiled, buf, *args, timeout=timeout)
        except TimeoutError:
            result = "timeout"
        _write_frame(sink, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))


# the worker is this file run by path (not imported as part of the package, so it starts quickly), with neither
# the working directory nor this file's directory on sys.path
_BOOT = "import sys; del sys.path[0]; import runpy; runpy.run_path(sys.argv[1], run_name='__scratchfs_worker__')"

if __name__ == "__scratchfs_worker__":
    serve()
