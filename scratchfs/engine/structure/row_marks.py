"""Where rows of one CSV/TSV content start and their numbers, as a count of rows reached them
(:func:`~scratchfs.engine.structure.table.rows_at`): a later count starts from the nearest one before its first
offset instead of from the table's start -- a search's next page numbers its rows from where the last page's
stopped, not by parsing the table again from its first byte (118 ms a page near 2 MiB of dpkg's descriptions).

A child of ``fork()`` makes each one's lock anew (another thread of the parent may have held it, for ever in the
child: its next search of that table hung; hostile38), as :mod:`scratchfs.engine.caches` does its LRUs'."""

from __future__ import annotations

import bisect
import os
import threading
import weakref

__all__ = ["RowMarks"]

_MOST_MARKS = 256


class RowMarks:
    """``(byte offset where a row starts, that row's number)`` pairs of one content, numbered one way (with or
    without a header row), at most ``most`` of them (beyond, the nearest the start are dropped). Thread-safe."""

    def __init__(self, most: int = _MOST_MARKS) -> None:
        self._marks: list[tuple[int, int]] = []
        self._most = most
        self._lock = threading.Lock()
        _ALL.add(self)

    def before(self, offset: int) -> tuple[int, int] | None:
        """The mark of the last row known to start at or before byte ``offset``, or ``None``."""
        with self._lock:
            at = bisect.bisect_right(self._marks, (offset, float("inf"))) - 1
            return self._marks[at] if at >= 0 else None

    def add(self, start: int, number: int) -> None:
        """Note that row ``number`` starts at byte ``start``."""
        with self._lock:
            at = bisect.bisect_left(self._marks, (start, number))
            if at < len(self._marks) and self._marks[at] == (start, number):
                return
            self._marks.insert(at, (start, number))
            if len(self._marks) > self._most:
                del self._marks[0]

    def __len__(self) -> int:
        return len(self._marks)


_ALL: weakref.WeakSet[RowMarks] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for marks in list(_ALL):
        marks._lock = threading.Lock()  # (a list cut between a thread's steps is still sorted: insert, then del)


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)
