"""scratchfs.engine.giving_up: a call given up from another thread stops at once (its worker killed, its search told
to stop), a call given up before it began never runs, and the thread's next call runs as usual."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest

from scratchfs import ScratchStore
from scratchfs.engine import pattern_worker
from scratchfs.engine.giving_up import GivenUp, given_up
from scratchfs.engine.worker_pipe import GIVEN_UP
from scratchfs.foundation.errors import PatternTimeout

LIMIT = 60.0  # the store's pattern_timeout: how long the runaway search runs when nothing stops it


def test_a_call_given_up_before_it_began_never_runs():
    ran = []
    call = GivenUp()
    assert call.cancel() is False  # (not running: nothing to wait for)
    with pytest.raises(TimeoutError):
        call.run(ran.append, 1)
    assert ran == [] and call.finished.is_set()


def test_a_call_given_up_after_it_ended_leaves_its_thread_alone():
    with ThreadPoolExecutor(1) as pool:
        call = GivenUp()
        assert pool.submit(call.run, given_up).result() is False
        assert call.cancel() is False
        assert pool.submit(GivenUp().run, given_up).result() is False  # the same thread's next call
    assert not GIVEN_UP


@pytest.mark.alone  # (a bound of wall-clock time)
def test_a_runaway_search_given_up_stops_at_once_and_the_next_call_in_its_thread_runs(tmp_path):
    """Before, the search ran on in its worker process until its time limit (LIMIT)."""
    with ScratchStore(tmp_path, pattern_timeout=LIMIT) as store, ThreadPoolExecutor(1) as pool:
        scope = store.scope("r", "a")
        handle = scope.spill(("a" * 3000 + "\n") * 20, source_tool="t").handle
        busy_before = pattern_worker.workers()[0] - pattern_worker.workers()[1]
        call = GivenUp()
        began = time.monotonic()
        future = pool.submit(call.run, partial(scope.read_handle, handle, pattern="(a|aa)+b"))
        while pattern_worker.workers()[0] - pattern_worker.workers()[1] <= busy_before:  # in a worker: busy
            assert time.monotonic() - began < LIMIT / 2, (future.done() and future.exception(), "no worker")
            time.sleep(0.02)
        cancelled = time.monotonic()
        assert call.cancel() is True
        assert call.finished.wait(LIMIT / 2)
        stopped = time.monotonic() - cancelled
        assert stopped < 2.0, stopped  # (at once: the worker's death is seen in the call's next poll)
        future.exception()  # (what the given-up call returned or raised is thrown away by its caller)
        alive, idle = pattern_worker.workers()
        assert alive - idle == busy_before  # its worker is gone
        found = pool.submit(GivenUp().run, partial(scope.read_handle, handle, pattern="a{3}\n", max_matches=1))
        found = found.result()
        assert found.windows and found.windows[0].matches[0].offset == 2997  # the thread's next search runs whole
    assert not GIVEN_UP


def _fill_the_regex_pool(scope, handle, pool):
    """Runaway searches, one per regex worker, each busy in its worker: their calls (GivenUp, to stop them after)."""
    calls = [GivenUp() for _ in range(pattern_worker.MAX_WORKERS)]
    futures = [pool.submit(call.run, partial(scope.read_handle, handle, pattern="(a|aa)+b")) for call in calls]
    began = time.monotonic()
    while pattern_worker.workers()[0] - pattern_worker.workers()[1] < pattern_worker.MAX_WORKERS:
        assert time.monotonic() - began < 30, [future.done() and future.exception() for future in futures]
        time.sleep(0.02)
    return calls


def _past_its_slice(threads: list[int]) -> bool:
    """Whether the search of the thread in ``threads`` outlasted its slice in the thread (its engine is remote)."""
    frame = sys._current_frames().get(threads[0]) if threads else None
    while frame is not None:
        if frame.f_code.co_name == "_call" and isinstance(frame.f_locals.get("self"), pattern_worker.Engine):
            return frame.f_locals["self"].remote
        frame = frame.f_back
    return False


def _stop(calls):
    for call in calls:
        call.cancel()
    for call in calls:
        assert call.finished.wait(30)


@pytest.mark.alone  # (a bound of wall-clock time)
def test_a_search_given_up_while_every_regex_worker_is_busy_returns_at_once(tmp_path):
    """helper mcp7: with every regex worker busy, a search that outlasted its slice in its thread ran on there, where
    nothing can stop it, until its time limit of CPU time: a cancel waited 20 s for a 10 s limit on a loaded machine.
    A call that may be given up now waits for a worker to come free, a wait its cancel ends."""
    with ScratchStore(tmp_path, pattern_timeout=20.0) as store, ThreadPoolExecutor(5) as pool:
        scope = store.scope("r", "a")
        handle = scope.spill(("a" * 3000 + "\n") * 20, source_tool="t").handle
        fillers = _fill_the_regex_pool(scope, handle, pool)
        try:
            call, threads = GivenUp(), []
            future = pool.submit(lambda: threads.append(threading.get_ident()) or call.run(
                partial(scope.read_handle, handle, pattern="(a|aa)+c")))
            began = time.monotonic()
            while not _past_its_slice(threads):  # (before, a cancel stopped it at the slice's end)
                assert time.monotonic() - began < 30 and not future.done(), future.done() and future.exception()
                time.sleep(0.02)
            time.sleep(0.3)  # (into its wait for a worker: before, into its run in the thread)
            cancelled = time.monotonic()
            assert call.cancel() is True
            assert call.finished.wait(10)
            stopped = time.monotonic() - cancelled
            assert stopped < 2.0, stopped
            assert pattern_worker.workers()[0] - pattern_worker.workers()[1] == pattern_worker.MAX_WORKERS
        finally:
            _stop(fillers)
    assert not GIVEN_UP


def test_a_search_that_finds_every_regex_worker_busy_until_its_limit_says_so(tmp_path):
    """The wait for a busy pool ends at the search's deadline with a time-out that names the busy workers, not the
    pattern's backtracking, and says where to search again."""
    with ScratchStore(tmp_path / "long", pattern_timeout=LIMIT) as store, \
            ScratchStore(tmp_path / "short", pattern_timeout=1.0) as short, ThreadPoolExecutor(5) as pool:
        scope, other = store.scope("r", "a"), short.scope("r", "a")
        text = ("a" * 3000 + "\n") * 20
        handle, mine = scope.spill(text, source_tool="t").handle, other.spill(text, source_tool="t").handle
        fillers = _fill_the_regex_pool(scope, handle, pool)
        try:
            with pytest.raises(PatternTimeout) as caught:
                pool.submit(GivenUp().run, partial(other.read_handle, mine, pattern="(a|aa)+c")).result(30)
        finally:
            _stop(fillers)
    said = str(caught.value)
    assert "every regex worker was busy with other searches" in said and "search again from offset=0" in said, said
    assert caught.value.resume_offset == 0
