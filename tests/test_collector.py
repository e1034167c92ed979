"""The garbage collector's pause around a parse (scratchfs/foundation/collector.py): paused for the block, resumed
as it was when the first of overlapping pauses ends, across threads, exceptions and a fork."""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

import pytest

from scratchfs.foundation.collector import CollectorPaused, paused_depth


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_a_pause_stops_the_collector_for_its_block_and_resumes_it_after_an_error():
    seen = []
    with pytest.raises(KeyError), CollectorPaused():  # noqa: PT012 - the pause's state seen inside, then the error
        seen.append((gc.isenabled(), paused_depth()))
        raise KeyError("x")
    assert seen == [(False, 1)] and gc.isenabled() and paused_depth() == 0


def test_a_collector_the_application_disabled_stays_disabled():
    gc.disable()
    with CollectorPaused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_resume_only_when_the_outer_one_ends():
    with CollectorPaused():
        with CollectorPaused():
            assert paused_depth() == 2
        assert not gc.isenabled()
    assert gc.isenabled()


@contextlib.contextmanager
def _paused_in_another_thread() -> Iterator[None]:
    """A pause held open by another thread for the block, then ended (the thread joined)."""
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with CollectorPaused():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    try:
        yield
    finally:
        leave.set()
        thread.join(10)


def test_overlapping_pauses_in_two_threads_resume_when_the_last_ends():
    with _paused_in_another_thread():
        with CollectorPaused():
            pass
        assert not gc.isenabled()  # (the other thread's pause is still open: this one's end did not resume it)
    assert gc.isenabled() and paused_depth() == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_child_forked_while_another_thread_pauses_runs_its_collector():
    with _paused_in_another_thread():
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            with CollectorPaused():
                pass
            os.write(write, b"%d%d" % (gc.isenabled(), paused_depth()))
            os._exit(0)
        os.close(write)
        told = os.read(read, 8)
        os.close(read)
        os.waitpid(pid, 0)
    assert told == b"10" and gc.isenabled()


def test_pauses_handing_off_without_a_gap_resume_the_collector_when_the_first_ends():
    """Pauses that overlap one another without a gap (threads parsing JSON in turn, each starting before the last
    ended) kept the collector paused as long as they went on, every thread's cyclic garbage kept: now it resumes
    when the pause that paused it ends, and the pauses open then, and those begun after, leave it running."""
    held = CollectorPaused()
    held.__enter__()
    assert not gc.isenabled()
    for _ in range(5):  # (each next pause begins before the one before it ends: never none open)
        following = CollectorPaused()
        following.__enter__()
        held.__exit__(None, None, None)
        held = following
        assert gc.isenabled() and paused_depth() == 1
    held.__exit__(None, None, None)
    assert gc.isenabled() and paused_depth() == 0
    with CollectorPaused():  # (none open: the next pause pauses it again)
        assert not gc.isenabled()


def test_a_pause_in_another_thread_ended_before_this_ones_resumes_the_collector_for_the_rest_of_it():
    this = CollectorPaused()
    with _paused_in_another_thread():
        this.__enter__()
        assert not gc.isenabled() and paused_depth() == 2
    assert gc.isenabled() and paused_depth() == 1  # (this one began second: the first's end resumed it)
    with CollectorPaused():
        assert gc.isenabled()  # (begun while the collector runs with a pause open: it stays running)
    this.__exit__(None, None, None)
    assert gc.isenabled() and paused_depth() == 0


def test_one_pause_entered_twice_resumes_the_collector_when_its_outer_block_ends():
    pause = CollectorPaused()
    with pause:
        with pause:
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled() and paused_depth() == 0

