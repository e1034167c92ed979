"""A ``fork()`` waits until no thread of this process is inside a use of a SQLite index (a checkout of its
connection: :meth:`scratchfs.engine.sqlite_connections.Connections.acquire` to ``release``), and no use starts while
it waits.

SQLite keeps the locks of a process's connections in memory it shares between them (its per-file lock records): a
child forked while another thread held a write transaction (a spill's commit, the write-behind flusher's) or a
reader's lock inherits records saying that a connection of its own holds them, a connection that is in no thread of
the child and never lets go. Every write transaction of the child then waited its busy timeout and failed, each
spill's row was never committed, and a stub handed to the model named an entry no read in the child could find
(``tests/test_hostile21_fork.py``: a child forked while a thread of the parent was in a commit; 4 of 10 children
forked while three threads spilled, each read failing after 40 s). A checkout is milliseconds; a fork waits at most
:data:`FORK_WAIT` seconds for those in flight, then forks as it did before (a use held up by a lock of another
process, which no wait of ours frees).

The calling thread's own uses do not hold its fork up (a thread forking inside a use is its own to mind), and a
thread inside a use goes on with nested ones (so two stores' checkouts never wait for each other).

A use is counted with no lock taken (every read of an index goes through here: a lock taken and let go twice a use
cost about 0.9 us of T8's 10.4 us ``scratch_read``, ``bench/scratch_read_ab.py``): a thread notes its use in a
shared map first and reads whether a fork waits second, while the fork sets that it waits first and reads the map
second, both under the interpreter lock, which runs one thread's steps at a time in some order: whichever comes
second sees the other (the store-then-load order of Dekker's mutual exclusion, E. W. Dijkstra, "Cooperating
sequential processes", 1965). Only a use that finds a fork waiting takes the gate's lock and waits. An interpreter
built without that lock (``sys._is_gil_enabled()`` false) takes the lock on every use instead.

**Opening and closing.** A connection is also opened and closed outside a use: a thread's connection is closed by
its :class:`~scratchfs.engine.sqlite_connections.Hold` finaliser as the thread ends, and the store opens and closes
connections as it opens and closes. ``sqlite3_close`` runs without the interpreter lock, and a child holds a replica
of the forking thread only, with the states of the other threads' mutexes as they were (POSIX ``fork()``,
https://pubs.opengroup.org/onlinepubs/9699919799/functions/fork.html): a child forked while a thread of the parent
was closing its connection inherited the file's lock records (a close checkpoints the log under a lock: its writes
failed with StoreBusy) or one of SQLite's process-wide mutexes held, and its first ``sqlite3.connect`` waited for
it forever (``tests/test_hostile21_fork.py``'s commit scenario, whose write-holding thread ends as the fork starts:
in 2,000 runs beside 2 CPU hogs, 3 children's writes failed StoreBusy and 7 hung in ``connect`` until their alarm,
gdb showing them in ``pthread_mutex_lock`` from ``sqlite3Malloc`` or ``sqlite3PagerOpen``; 0 of 600 with the lock
below). Such calls hold :func:`outside_use`'s lock, which a fork takes (CPython's ``os.register_at_fork``) after
its wait for the uses, within the same :data:`FORK_WAIT`, and lets go after it (a child makes a new one). The lock
is re-entrant: a finaliser closing a connection may run in any thread, the forking one included, at any allocation.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from collections.abc import Callable

FORK_WAIT = 2.0
"""Seconds a ``fork()`` waits at most for the uses of SQLite in flight in other threads."""


class _Gate:
    """How many forks wait for the uses in flight, and the lock and condition they and the uses wait on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)  # (waited on holding ``lock``, taken by itself elsewhere: C-fast)
        self.forking = 0  # forks waiting or under way (two threads may fork at once: each ends only its own)


_GATE = _Gate()
_OUTSIDE = threading.RLock()  # held around an open or close outside a use, and by a fork (see outside_use)
_FORKERS: set[int] = set()  # threads that fork holding _OUTSIDE (two may fork at once: each lets go of its own)
_USES: dict[int, int] = {}  # thread ident -> that thread's uses in flight (nested ones included); absent: none
_LOCKED = not getattr(sys, "_is_gil_enabled", lambda: True)()  # no interpreter lock: every use takes the gate's
_ident = threading.get_ident


def enter() -> None:
    """Start a use (the outermost checkout of a thread's connection): waits while a fork waits for the uses in
    flight, unless this thread is in one already. Pair with :func:`leave`."""
    uses, me = _USES, _ident()
    nested = uses.get(me, 0)
    uses[me] = nested + 1  # (noted before ``forking`` is read: a fork that set it first sees this use)
    if not nested and _GATE.forking:
        try:
            _wait_out(me)
        except BaseException:  # (an interrupt in the wait: enter() raises, so no leave() will take the use back)
            _USES.pop(me, None)
            raise


def _wait_out(me: int) -> None:
    """A use that found a fork waiting: taken back while the fork waits (it may be waiting for it), then again."""
    gate = _GATE
    with gate.cond if not _LOCKED else contextlib.nullcontext():  # (no interpreter lock: enter() holds it)
        while gate.forking:
            del _USES[me]
            gate.cond.notify_all()
            gate.cond.wait()
            _USES[me] = 1


def leave() -> None:
    """End a use started by :func:`enter`."""
    uses, me = _USES, _ident()
    left = uses[me] - 1
    if left:
        uses[me] = left
        return
    del uses[me]
    gate = _GATE
    if gate.forking:  # (read after the use is gone: a fork that saw it is woken to look again)
        if _LOCKED:
            gate.cond.notify_all()
            return
        with gate.cond:
            gate.cond.notify_all()


def _locked(use: Callable[[], None]) -> Callable[[], None]:
    """``use`` holding the gate's lock (an interpreter without its own lock)."""

    @functools.wraps(use)
    def locked() -> None:
        with _GATE.lock:
            use()

    return locked


if _LOCKED:  # pragma: no cover - a free-threaded build
    enter, leave = _locked(enter), _locked(leave)


def outside_use() -> threading.RLock:
    """The lock to hold (``with fork_gate.outside_use():``) around a call into SQLite made outside a use: opening or
    closing a connection. A fork waits for it after its wait for the uses, and none starts while a fork is under
    way (see the module docstring). Re-entrant; never wait for it holding another lock (a fork may hold it)."""
    return _OUTSIDE


def _others_in_use(me: int) -> bool:
    return any(ident != me for ident in list(_USES))  # (a copy: one step of the interpreter)


def _before_fork() -> None:
    gate, me = _GATE, _ident()
    deadline = time.monotonic() + FORK_WAIT
    with gate.cond:
        gate.forking += 1
        while _others_in_use(me):
            left = deadline - time.monotonic()
            if left <= 0:
                break  # (a use held up past the wait: fork as before, rather than never)
            gate.cond.wait(left)
    if _OUTSIDE.acquire(timeout=max(0.0, deadline - time.monotonic())):  # (an open or close in flight: ms)
        _FORKERS.add(me)


def _after_in_parent() -> None:
    gate, me = _GATE, _ident()
    if me in _FORKERS:
        _FORKERS.discard(me)
        _OUTSIDE.release()
    with gate.cond:
        gate.forking -= 1
        gate.cond.notify_all()


def _after_in_child() -> None:
    global _GATE, _OUTSIDE  # (the child's are new: a thread not copied may have held their locks)
    _GATE, _OUTSIDE = _Gate(), threading.RLock()
    _FORKERS.clear()
    mine = _USES.get(_ident(), 0)
    _USES.clear()  # (the other threads' uses: those threads are not in the child)
    if mine:
        _USES[_ident()] = mine


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(before=_before_fork, after_in_parent=_after_in_parent, after_in_child=_after_in_child)

__all__ = ["FORK_WAIT", "enter", "leave", "outside_use"]
