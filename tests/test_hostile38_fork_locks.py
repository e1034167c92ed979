"""A ``fork()`` while another thread of the parent holds a lock of a process-wide cache or of the collector's pause
count (hostile38).

A child holds a replica of the forking thread only, every lock as it was: an LRU's lock (``engine.caches``: the zip
directories kept, a CSV search's row marks, every engine cache) or a table's row marks' lock held by another thread of
the parent stayed held in the child, whose first look in that cache hung for ever (40 of 40 children forked while 3
threads used one LRU; 8 of 10 for row marks). A child forked while a thread was between ``gc.disable()`` and
counting its pause ran with its collector off for good. Through the store (4 threads spilling, searching one CSV
of ``fixtures/tools/dpkg-query-multiline.csv`` and reading a zip's member tails in two stores, deleting entries,
while the main thread forked and each child searched and read a zip tail): 1 of 100 children hung before, 0 of 298
after, every row as ``rows_at`` counts from the start and every tail right.
Each scenario runs in a fresh interpreter (as
``tests/test_hostile21_fork.py``'s: a pytest worker's own threads hold locks a fork copies); a child that hangs ends
at its alarm and reports nothing.
"""

from __future__ import annotations

import gc
import os
import threading
import types
from pathlib import Path

import pytest

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.row_marks import RowMarks
from scratchfs.foundation import collector
from tests.forking import in_child, isolated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")

_ROOT = Path(__file__).resolve().parent.parent


def _in_child(work) -> dict:
    """Fork; ``work()``'s report (a dict, JSON through a pipe) from the child, ``{}`` if it hung (its alarm)."""
    return in_child(work, 5, hung={})


def _held_while(hold, then) -> dict:
    """Run ``hold(inside, go_on)`` in a thread until it sets ``inside``; fork; let it go on; the child's report."""
    inside, go_on = threading.Event(), threading.Event()
    thread = threading.Thread(target=hold, args=(inside, go_on))
    thread.start()
    assert inside.wait(10)
    try:
        return _in_child(then)
    finally:
        go_on.set()
        thread.join(10)


def _scenario_lru() -> None:
    stuck: list[threading.Event] = []

    def weigh(value: str) -> int:
        if value == "slow" and stuck:  # (weighed under the lock as it is dropped: the put holds it here)
            stuck[0].set()
            stuck[1].wait(10)
        return len(value)

    cache: LRU[int, str] = LRU(1, max_weight=100, weigh=weigh)
    cache.put(1, "slow")

    def hold(inside, go_on):
        stuck[:] = [inside, go_on]
        cache.put(2, "dropping the slow one")  # (its weight taken off under the lock)

    got = _held_while(hold, lambda: {"get": cache.get(2), "len": len(cache)})
    assert got == {"get": "dropping the slow one", "len": 1}, got


def _scenario_row_marks() -> None:
    marks = RowMarks()
    marks.add(10, 2)

    def hold(inside, go_on):
        with marks._lock:  # (a thread in the middle of an add)
            inside.set()
            go_on.wait(10)

    got = _held_while(hold, lambda: {"before": marks.before(50)})
    assert got == {"before": [10, 2]}, got


def _scenario_collector() -> None:
    real = gc.disable

    def disable_then_wait():  # (a pause between turning the collector off and counting itself)
        real()
        stuck[0].set()
        stuck[1].wait(0.5)

    stuck: list[threading.Event] = []
    collector.gc = types.SimpleNamespace(disable=disable_then_wait, enable=gc.enable, isenabled=gc.isenabled)

    def hold(inside, go_on):
        stuck[:] = [inside, go_on]
        with collector.CollectorPaused():
            pass

    got = _held_while(hold, lambda: {"enabled": gc.isenabled(), "depth": collector.paused_depth()})
    assert got == {"enabled": True, "depth": 0}, got
    assert gc.isenabled() and collector.paused_depth() == 0


def _isolated(scenario: str) -> None:
    isolated("tests.test_hostile38_fork_locks", scenario)


def test_a_child_forked_while_a_thread_holds_an_lru_lock_reads_that_cache():
    _isolated("_scenario_lru")


def test_a_child_forked_while_a_thread_holds_row_marks_reads_them():
    _isolated("_scenario_row_marks")


def test_a_child_forked_while_a_pause_begins_runs_its_collector():
    _isolated("_scenario_collector")
