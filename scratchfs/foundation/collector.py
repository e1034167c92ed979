"""Pause CPython's cyclic garbage collector for the length of one parse that builds many containers.

Parsing JSON allocates a list or dict for every array or object of the text, none of them garbage until the parse is
over. Each allocation counts towards the collector's first threshold (700 containers), and the collections it
triggers walk the containers still alive -- most of the value parsed so far -- so a document of many small arrays
pays the collector more than the parse: 512 KiB of ``[[1,2],[3]], ...`` took 44 ms to describe, 28 ms of them in the
collector (``python bench/json_shape_costs.py``). A parse makes no reference cycles (a JSON value is a tree), so there
is nothing for the collector to find during it: it is paused, then resumed as it was. The technique is the one the
``gc`` module's documentation offers (https://docs.python.org/3/library/gc.html: "the collector can be disabled if
you are sure your program does not create reference cycles").

Pauses that overlap -- two threads parsing at once, or one pause inside another -- are counted under a lock. The
pause that found none open (the stretch's first) pauses the collector, and only if it was enabled (an application
that disabled it keeps it disabled); the collector resumes when that first pause ends, even if others it overlapped
are still open, and pauses that begin before all of those have ended find it running and leave it so. It was paused
until the last of them ended: threads whose parses overlapped one another without a gap (four threads reading JSON
at once) kept it paused for as long as they did, while every thread's cyclic garbage piled up (3 collections in 8 s,
not 371; hostile36). So the collector is never paused longer than one pause lasts. A child forked during a pause
resumes the collector its parent paused; a fork takes the count's lock first (``os.register_at_fork``), so that the
child never sees the collector paused by a pause not yet counted (a thread between ``gc.disable()`` and noting it
left the child's collector off for good; hostile38).
"""

from __future__ import annotations

import gc
import os
import threading
from types import TracebackType

__all__ = ["CollectorPaused", "paused_depth"]

_lock = threading.Lock()
_depth = 0
_held = False
"""Whether a pause of this module paused the collector (it resumes when that pause, or the last open, ends)."""


class CollectorPaused:
    """``with CollectorPaused():`` -- the cyclic garbage collector paused for the block, or for as long as the pause
    open when it began lasts (see the module docstring). Raises nothing of its own; a block's exception passes through
    with the collector resumed."""

    __slots__ = ("_first",)

    def __init__(self) -> None:
        self._first = False

    def __enter__(self) -> None:
        global _depth, _held  # noqa: PLW0603 - the process-wide pause count this module exists for
        with _lock:
            self._first = _depth == 0 and gc.isenabled()
            if self._first:
                gc.disable()
                _held = True
            _depth += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        global _depth, _held  # noqa: PLW0603
        with _lock:
            if _depth == 0:  # (a child forked inside this very pause starts with none open)
                return
            _depth -= 1
            if _held and (self._first or _depth == 0):  # (one instance entered twice: its first flag is the inner's)
                gc.enable()
                _held = False
            self._first = False


def paused_depth() -> int:
    """How many pauses are open now, across threads (0 when the collector runs as the application left it)."""
    return _depth


def _after_fork_in_child() -> None:
    """A child forked while another thread of its parent held a pause: that thread does not exist in the child, so
    its pause never ends there. Start the child with no pause open and the collector as the parent had it."""
    global _lock, _depth, _held  # noqa: PLW0603
    _lock = threading.Lock()
    _forkers.clear()
    if _held:
        gc.enable()
    _depth, _held = 0, False


_FORK_WAIT = 2.0  # seconds a fork waits for the count's lock at most (held for a few steps, never across a wait)
_forkers: set[int] = set()  # threads forking holding the lock (each lets go of its own)


def _before_fork() -> None:
    if _lock.acquire(timeout=_FORK_WAIT):  # (the fork sees a whole count; past the wait, forks as before)
        _forkers.add(threading.get_ident())


def _after_fork_in_parent() -> None:
    if threading.get_ident() in _forkers:
        _forkers.discard(threading.get_ident())
        _lock.release()


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)
