"""A regex engine that stops on time: a match that outlasts a short slice in the calling thread moves to a worker
process, which is killed at the search's deadline (wall clock).

Why not the ``regex`` package's own ``timeout`` alone: it counts the *process's* CPU time (C ``clock()``), so a
search on a machine that gives the process less than a core ends late by that factor (measured: 3.9 s for a 2 s
limit under a load of 5 on 2 cores), and a thread cannot be stopped from outside. A process can. Each call runs
first in the calling thread with ``concurrent=True`` (the GIL released, so other threads go on) and a time limit of a
tenth of the search's limit, at most :data:`SLICE_SECONDS`; a call that needs longer is run again from its start in
a worker process, and the search's later calls go there too until one of them is quick again (no buffer copies for
a search of many short calls). Normal searches never leave the thread. A search's buffer goes to a worker once, not
with every call: each buffer sent is named by an id unique in the process and a worker keeps the last one it was sent
(one at a time), so a later call on the same bytes (compared in full) sends the id and its positions alone; a worker
that holds another buffer (another search's, or a new worker's none) answers :data:`MISSING`, and the call is sent
again with the bytes. A search ends at most a slice (times the CPU starvation of the process) after its deadline. A
call that may be given up (:mod:`scratchfs.engine.giving_up`: its thread in
:data:`~scratchfs.engine.worker_pipe.WATCHED`, an MCP tool call) gets a slice of at most :data:`WATCHED_SLICE_SECONDS`
instead: the regex engine cannot be stopped inside a call, a worker can, and a cancel
that came during a half-second slice stopped the search only at the slice's end.

The worker is a fresh interpreter running this file by path (it imports only ``regex``; the process plumbing, and why
not ``fork``: :mod:`scratchfs.engine.worker_pipe`). It gets only the pattern's core syntax and the bytes to match
(pickles over its stdin and stdout, between this process and its own child), never a path or a descriptor; it holds
the last bytes sent until the next replace them or it exits (idle for 1.5 times
:data:`~scratchfs.engine.worker_pipe.IDLE_SECONDS`). At most :data:`MAX_WORKERS` workers run; when all are busy a call
stays in its thread with the remaining time as its limit -- but for a call that may be given up, which waits for one
to come free until its deadline (then
:class:`~scratchfs.engine.worker_pipe.PoolBusy`, a TimeoutError): a cancel wakes that wait and the call returns at once,
where in its thread it ran on to its limit (the thread's limit is CPU time: longer in wall time on a loaded machine;
``tests/test_mcp_give_up.py``). Every worker is killed at exit, busy ones too (:mod:`scratchfs.engine.worker_pipe`),
and a worker whose parent is gone reads end-of-file and exits. A search whose caller gave it up
(:mod:`scratchfs.engine.giving_up`) stops at its next step, its worker killed, rather than at its deadline.
"""

from __future__ import annotations

import itertools
import pickle
import threading
import time
from typing import Any

import regex

from scratchfs.engine.worker_loop import reply, requests
from scratchfs.engine.worker_pipe import WATCHED, WORKER_NAME, NoWorker, Pool, given_up

__all__ = ["FLAGS", "MAX_WORKERS", "MISSING", "SLICE_SECONDS", "WATCHED_SLICE_SECONDS", "Engine", "Sent",
           "Span", "anchored_match", "first_match", "workers"]

SLICE_SECONDS = 0.5
"""Longest time limit of a call in the calling thread, in seconds of the process's CPU time, before it moves to a
worker."""
WATCHED_SLICE_SECONDS = 0.05
"""Longest slice in the calling thread of a call that may be given up (see the module docstring): the most CPU time
a cancel waits for."""
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
_BUFFER_IDS = itertools.count(1)  # (next() is atomic under the GIL: ids unique in the process, never reused)
MISSING = "missing"
"""A worker's answer to a call naming a buffer it does not hold (the call is sent again with the bytes)."""


class Sent:
    """The buffer a search last sent to a worker: its id and a copy of its bytes (``None``: none yet). One search's
    engines share one (a pattern and its finder ask about the same buffer); it holds the copy until the search ends."""

    __slots__ = ("data", "key")

    def __init__(self) -> None:
        self.key, self.data = 0, None


class Engine:
    """Runs :func:`first_match` and :func:`anchored_match` for one compiled pattern until ``deadline``.

    Args:
        compiled: the pattern (compiled with :data:`FLAGS`).
        deadline: ``time.monotonic()`` value after which every call raises TimeoutError (PoolBusy: a call that may
            be given up found every worker busy until then).
        timeout: the search's time limit in seconds; a call's slice in the thread is a tenth of it, at most
            :data:`SLICE_SECONDS` (:data:`WATCHED_SLICE_SECONDS` when the engine is made in a thread whose call may
            be given up).
        sent: the :class:`Sent` of the search's other engines (``None``: its own).
    """

    def __init__(self, compiled: regex.Pattern, deadline: float, timeout: float, sent: Sent | None = None) -> None:
        self.compiled = compiled
        self.deadline = deadline
        self.watched = threading.get_ident() in WATCHED  # (a call that may be given up waits for a busy pool)
        self.slice = min(WATCHED_SLICE_SECONDS if self.watched else SLICE_SECONDS, timeout / 10)
        self.remote = False  # a call outlasted its slice: this search's calls run in a worker
        self.sent = Sent() if sent is None else sent

    def first(self, buf: bytearray, pos: int, endpos: int, partial: bool, limit: int) -> Span | None:
        """:func:`first_match` under the deadline. Raises TimeoutError."""
        return self._call("first", buf, (pos, endpos, partial, limit))

    def match(self, buf: bytearray, start: int, endpos: int, partial: bool) -> Span | None:
        """:func:`anchored_match` under the deadline. Raises TimeoutError."""
        return self._call("match", buf, (start, endpos, partial))

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or given_up():  # (given up: its caller is gone, or the process is being stopped)
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
        began = time.monotonic()
        try:  # TimeoutError (the deadline): the worker is stopped; PoolBusy: none came free before it
            status, result = self._remote(operation, buf, args)
        except NoWorker:  # no process to be had
            status = "busy"
        if status != "ok" and given_up():  # (the server is being stopped, kill_workers, or the call given up)
            raise TimeoutError
        if status != "ok":  # every worker busy, none to be had, or it died: the thread's own (CPU time) limit
            return _OPERATIONS[operation](self.compiled, buf, *args, timeout=self._left())
        if result == "timeout":
            raise TimeoutError
        if result == "memory":
            raise MemoryError
        if time.monotonic() - began < self.slice / 2:  # a quick call: the next one tries the thread again (no copy)
            self.remote = False
        return result

    def _remote(self, operation: str, buf: bytearray, args: tuple) -> tuple[str, Any]:
        """:meth:`Pool.run <scratchfs.engine.worker_pipe.Pool.run>` of the call: with the buffer's bytes when they
        differ from those last sent (a new id), else with the id alone -- and again with the bytes when the worker
        answers :data:`MISSING`. Raises what ``Pool.run`` raises, and TimeoutError past the deadline."""
        sent = self.sent
        again = sent.data is not None and sent.data == buf  # (a length check, then memcmp: exact)
        if not again:
            sent.data = None  # (the old copy freed before the new one is made)
            sent.key, sent.data = next(_BUFFER_IDS), bytes(buf)
        key, data = sent.key, sent.data
        while True:
            request = pickle.dumps((self.compiled.pattern, operation, key, None if again else data, args, self._left()),
                                   pickle.HIGHEST_PROTOCOL)
            status, result = _POOL.run(request, self.deadline, wait=self.watched)
            if not (again and status == "ok" and result == MISSING):
                return status, result
            again = False


_POOL = Pool(__file__, MAX_WORKERS, "regex")


def workers() -> tuple[int, int]:
    """``(alive, idle)``: worker processes running, and those of them waiting for a call."""
    return _POOL.counts()


def serve() -> None:
    """The worker's loop over stdin and stdout: ``(core, operation, key, buf, args, timeout)`` in -- ``buf`` the bytes
    of buffer ``key``, kept until the next bytes come, or ``None`` for the kept ones -- and a span, ``None``,
    ``"timeout"``, ``"memory"`` (the engine's MemoryError) or :data:`MISSING` (``key`` is not the buffer kept) out;
    returns when stdin closes (the parent is gone or stopped it)."""
    cache: dict[bytes, regex.Pattern] = {}
    held: tuple[int, bytes] = (0, b"")  # the buffer kept: one at a time
    for core, operation, key, buf, args, timeout in requests():
        if buf is not None:
            held = (key, buf)
        elif key != held[0]:
            reply(pickle.dumps(MISSING, protocol=pickle.HIGHEST_PROTOCOL))
            continue
        buf = held[1]
        compiled = cache.get(core)
        if compiled is None:
            if len(cache) >= 8:
                cache.clear()
            compiled = cache[core] = regex.compile(core, FLAGS, cache_pattern=False)
        try:
            result: Any = _OPERATIONS[operation](compiled, buf, *args, timeout=timeout)
        except TimeoutError:
            result = "timeout"
        except MemoryError:  # (regex's backtracking of a repeated group that can match empty: told, not died of)
            result = "memory"
        reply(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == WORKER_NAME:
    serve()
