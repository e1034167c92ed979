"""Pause CPython's cyclic garbage collector for the length of one parse that builds many containers.

Parsing JSON allocates a list or dict for every array or object of the text, none of them garbage until the parse is
over. Each allocation counts towards the collector's first threshold (700 containers), and the collections it
triggers walk the containers still alive -- most of the value parsed so far -- so a document of many small arrays
pays the collector more than the parse: 512 KiB of ``[[1,2],[3]], ...`` took 44 ms to describe, 28 ms of them in the
collector (``python bench/json_shape_costs.py``). A parse makes no reference cycles (a JSON value is a tree), so there
is nothing for the collector to find during it: it is paused, then resumed as it was. The technique is the one the
``gc`` module's documentation offers (https://docs.python.org/3/library/gc.html: "the collector can be disabled if
you are sure your program does not create reference cycles").

Pauses that overlap -- two threads parsing at once, or one pause inside another -- are counted under a lock: the
collector resumes when the last of them ends, and only if it was enabled when the first began (an application that
disabled it keeps it disabled). A child forked during a pause resumes the collector its parent paused.
"""

from __future__ import annotations

import gc
import os
import threading
from types import TracebackType

__all__ = ["CollectorPaused", "paused_depth"]

_lock = threading.Lock()
_depth = 0
_resume = False


class CollectorPaused:
    """``with CollectorPaused():`` -- the cyclic garbage collector paused for the block (see the module docstring).
    Raises nothing of its own; a block's exception passes through with the collector resumed."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _depth, _resume  # noqa: PLW0603 - the process-wide pause count this module exists for
        with _lock:
            if _depth == 0:
                _resume = gc.isenabled()
                gc.disable()
            _depth += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        global _depth  # noqa: PLW0603
        with _lock:
            if _depth == 0:  # (a child forked inside this very pause starts with none open)
                return
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()


def paused_depth() -> int:
    """How many pauses are open now, across threads (0 when the collector runs as the application left it)."""
    return _depth


def _after_fork_in_child() -> None:
    """A child forked while another thread of its parent held a pause: that thread does not exist in the child, so
    its pause never ends there. Start the child with no pause open and the collector as the parent had it."""
    global _lock, _depth  # noqa: PLW0603
    _lock = threading.Lock()
    if _depth and _resume:
        gc.enable()
    _depth = 0


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)
