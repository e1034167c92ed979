"""Write transactions bounded in time, not only in rows (issue 13): an adaptive batch size and a transaction log.

Every long job that writes the index in steps -- a delete's drain (:meth:`ScaleQueries.drain_scope
<scratchfs.engine.sqlite_scale.ScaleQueries.drain_scope>`), the sweep's expired rows, rows whose file is gone, capping
entries born in the future, forgetting tombstones -- sizes each transaction with a :class:`BatchSizer`: it starts at
a row count, halves it when a transaction took more than :data:`SLOW_SECONDS` and doubles it when one took less than
:data:`FAST_SECONDS` (never below ``low``, never above ``high``). On a quiet machine a batch is a few milliseconds;
on a loaded one (a transaction waits for a core while it holds SQLite's write lock) batches shrink, so that other
writers wait less.

:class:`TxnLog` counts every write transaction of an index by its duration (from ``BEGIN IMMEDIATE`` having the lock
to ``COMMIT`` done, seconds of ``time.perf_counter``) and rows changed, in buckets of :data:`BUCKETS_MS`; the growth
bench prints it.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable

from scratchfs.foundation import forks

SLOW_SECONDS = 0.004
"""A transaction slower than this halves the next batch."""

FAST_SECONDS = 0.001
"""A full batch faster than this doubles the next one."""

MIN_ROWS = 8
"""The smallest batch a :class:`BatchSizer` gives by default."""

MAX_ROWS = 512
"""The largest batch a :class:`BatchSizer` gives by default."""

BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
"""Upper bounds (milliseconds, inclusive) of the buckets of :class:`TxnLog`; one more bucket holds the rest."""


class BatchSizer:
    """The row count of the next batch of one job, adapted to how long the last one took.

    Args:
        start: the first batch's rows (clamped to ``low..high``).
        low, high: the bounds of the batch size, rows (``1 <= low <= high``).
        clock: seconds (monotonic), for timing each batch; injectable for tests.

    Attributes:
        size: the rows the next batch should take.
        history: ``(rows, seconds)`` of every batch reported to :meth:`took`, in order.
        longest: the longest batch reported, seconds.
    """

    def __init__(self, start: int, low: int = MIN_ROWS, high: int = MAX_ROWS,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if not 1 <= low <= high:
            raise ValueError(f"batch bounds must satisfy 1 <= low <= high, not {low}..{high}")
        self.low, self.high, self.clock = low, high, clock
        self.size = min(high, max(low, start))
        self.history: list[tuple[int, float]] = []
        self.longest = 0.0

    def took(self, seconds: float, rows: int) -> None:
        """Record that a batch of ``rows`` rows took ``seconds``, and size the next: half when slower than
        :data:`SLOW_SECONDS`, double when a full batch was faster than :data:`FAST_SECONDS`."""
        self.history.append((rows, seconds))
        self.longest = max(self.longest, seconds)
        if seconds > SLOW_SECONDS:
            self.size = max(self.low, self.size // 2)
        elif seconds < FAST_SECONDS and rows >= self.size:
            self.size = min(self.high, self.size * 2)


class TxnLog:
    """Counts of write transactions by duration, with the longest one (thread-safe).

    Attributes:
        counts: transactions per bucket of :data:`BUCKETS_MS` (the last bucket: longer than the last bound).
        longest: the longest transaction, seconds; ``longest_doing`` says what it did (a gerund phrase),
            ``longest_rows`` how many rows it changed and ``longest_cpu`` the CPU seconds its thread spent in it (the
            rest is waiting: for a core, the disk, a lock).
        most_rows: the most rows one transaction changed.
        checkpoints: checkpoints run between the transactions of batched jobs; ``longest_checkpoint`` (seconds).
    """

    def __init__(self) -> None:
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)  # (a fork() child: a new one)
        self.reset()

    def reset(self) -> None:
        """Forget everything counted so far."""
        with self._lock:
            self.counts = [0] * (len(BUCKETS_MS) + 1)
            self.longest, self.longest_doing, self.longest_rows, self.most_rows = 0.0, "", 0, 0
            self.longest_cpu = 0.0
            self.checkpoints, self.longest_checkpoint = 0, 0.0

    def checkpointed(self, seconds: float) -> None:
        """Count one checkpoint of the write-ahead log run between transactions (it holds no write lock)."""
        with self._lock:
            self.checkpoints += 1
            self.longest_checkpoint = max(self.longest_checkpoint, seconds)

    def record(self, seconds: float, rows: int, doing: str, cpu: float = 0.0) -> None:
        """Count one transaction of ``seconds`` (wall; ``cpu``: the thread's CPU seconds in it) that changed ``rows``
        rows while ``doing``."""
        ms = 1000 * seconds
        bucket = bisect_left(BUCKETS_MS, ms)  # the first bound >= ms, or len(BUCKETS_MS)
        with self._lock:
            self.counts[bucket] += 1
            self.most_rows = max(self.most_rows, rows)
            if seconds > self.longest:
                self.longest, self.longest_doing, self.longest_rows = seconds, doing, rows
                self.longest_cpu = cpu

    def summary(self) -> dict:
        """``{"transactions", "longest_ms", "longest_cpu_ms", "longest_doing", "longest_rows", "most_rows",
        "checkpoints", "longest_checkpoint_ms", "histogram"}``; the histogram maps ``"<=N ms"`` (and ``">N ms"`` for
        the last bucket) to a count, empty buckets left out."""
        with self._lock:
            labels = [f"<={b} ms" for b in BUCKETS_MS] + [f">{BUCKETS_MS[-1]} ms"]
            return {"transactions": sum(self.counts), "longest_ms": 1000 * self.longest,
                    "longest_cpu_ms": 1000 * self.longest_cpu,
                    "longest_doing": self.longest_doing, "longest_rows": self.longest_rows,
                    "most_rows": self.most_rows, "checkpoints": self.checkpoints,
                    "longest_checkpoint_ms": 1000 * self.longest_checkpoint,
                    "histogram": {label: n for label, n in zip(labels, self.counts, strict=True) if n}}


__all__ = ["BUCKETS_MS", "FAST_SECONDS", "MAX_ROWS", "MIN_ROWS", "SLOW_SECONDS", "BatchSizer", "TxnLog"]
