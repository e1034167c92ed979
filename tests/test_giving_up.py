"""scratchfs.engine.giving_up: a call given up from another thread stops at once (its worker killed, its search told
to stop), a call given up before it began never runs, and the thread's next call runs as usual."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest

from scratchfs import ScratchStore
from scratchfs.engine import pattern_worker
from scratchfs.engine.giving_up import GivenUp, given_up
from scratchfs.engine.worker_pipe import GIVEN_UP

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
