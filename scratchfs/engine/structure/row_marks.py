"""Where rows of one CSV/TSV content start and their numbers, as a count of rows reached them
(:func:`~scratchfs.engine.structure.table.rows_at`): a later count starts from the nearest one before its first
offset instead of from the table's start -- a search's next page numbers its rows from where the last page's
stopped, not by parsing the table again from its first byte (118 ms a page near 2 MiB of dpkg's descriptions).

A child of ``fork()`` makes each one's lock anew (another thread of the parent may have held it, for ever in the
child: its next search of that table hung; hostile38): :func:`scratchfs.foundation.forks.renewed_in_child` (a list
cut between a thread's steps is still sorted: insert, then del)."""

from __future__ import annotations

import bisect
import threading

from scratchfs.foundation import forks

__all__ = ["RowMarks"]

_MOST_MARKS = 256


class RowMarks:
    """``(byte offset where a row starts, that row's number)`` pairs of one content, numbered one way (with or
    without a header row), at most ``most`` of them (beyond, the nearest the start are dropped). Thread-safe."""

    def __init__(self, most: int = _MOST_MARKS) -> None:
        self._marks: list[tuple[int, int]] = []
        self._most = most
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)

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

