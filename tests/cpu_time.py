"""CPU time of a piece of work, for the cost bounds of the tests: the least of a few runs (a burst of load on the
machine slows one run, rarely all of them), in seconds of CPU, not of the wall clock.

The clock is this thread's (:func:`time.thread_time`) unless told: the process's clock counts the threads an earlier
test of the same worker left running (a store's sweeper, frame threads), and a test on the other worker runs on the
other core and leaves this thread's CPU time as it is, where a wall-clock bound counts the time the thread waited for
a core. Pass ``clock=time.process_time`` for work that runs in threads of its own (a spill's frame threads)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["best_cpu", "best_cpu_and_result"]

T = TypeVar("T")


def best_cpu_and_result(work: Callable[[], T], runs: int = 3, *, clock: Callable[[], float] = time.thread_time,
                        most: float | None = None) -> tuple[float, T]:
    """Run ``work()`` ``runs`` times; return the least CPU time of a run in seconds (a float read on ``clock``) and
    what the last run returned. With ``most`` (seconds), the runs stop at the first after which the least time so
    far is ``most`` or more: AssertionError, a runaway not run again. Raises what ``work`` raises."""
    best = float("inf")
    for _ in range(runs):
        started = clock()
        result = work()
        best = min(best, clock() - started)
        assert most is None or best < most, (best, most)
    return best, result


def best_cpu(work: Callable[[], object], runs: int = 3, *, clock: Callable[[], float] = time.thread_time,
             most: float | None = None) -> float:
    """The least CPU time in seconds of ``runs`` runs of ``work()`` (see :func:`best_cpu_and_result`)."""
    return best_cpu_and_result(work, runs, clock=clock, most=most)[0]
