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
"""

from __future__ import annotations

import os
import threading
import time

FORK_WAIT = 2.0
"""Seconds a ``fork()`` waits at most for the uses of SQLite in flight in other threads."""


class _Gate:
    """The count of uses in flight, and whether a fork is waiting for them."""

    def __init__(self, mine: int = 0) -> None:
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)  # (waited on holding ``lock``, taken by itself elsewhere: C-fast)
        self.uses = mine  # (a child: the forking thread's own, which it leaves in the child)
        self.forking = False


_GATE = _Gate()


class _Mine(threading.local):
    uses = 0


_MINE = _Mine()  # this thread's uses in flight (nested ones and other stores' included)


def enter() -> None:
    """Start a use (the outermost checkout of a thread's connection): waits while a fork waits for the uses in
    flight, unless this thread is in one already. Pair with :func:`leave`."""
    gate = _GATE
    with gate.lock:
        while gate.forking and not _MINE.uses:
            gate.cond.wait()
        gate.uses += 1
    _MINE.uses += 1


def leave() -> None:
    """End a use started by :func:`enter`."""
    _MINE.uses -= 1
    gate = _GATE
    with gate.lock:
        gate.uses -= 1
        if gate.forking and gate.uses <= 0:
            gate.cond.notify_all()


def _before_fork() -> None:
    gate = _GATE
    deadline = time.monotonic() + FORK_WAIT
    with gate.cond:
        gate.forking = True
        while gate.uses > _MINE.uses:
            left = deadline - time.monotonic()
            if left <= 0:
                return  # (a use held up past the wait: fork as before, rather than never)
            gate.cond.wait(left)


def _after_in_parent() -> None:
    gate = _GATE
    with gate.cond:
        gate.forking = False
        gate.cond.notify_all()


def _after_in_child() -> None:
    global _GATE  # noqa: PLW0603 - the child's gate is new: its lock may have been held by a thread not copied
    _GATE = _Gate(_MINE.uses)


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(before=_before_fork, after_in_parent=_after_in_parent, after_in_child=_after_in_child)

__all__ = ["FORK_WAIT", "enter", "leave"]
