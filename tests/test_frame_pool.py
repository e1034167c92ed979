"""The shared frame-compression threads (scratchfs.engine.frame_pool): results and errors reach the caller, a
cancelled call never runs, threads end when idle and start again on demand (no call is ever left unanswered at
that moment), and a fork child gets its own threads."""

from __future__ import annotations

import os
import threading
import time

import pytest

from scratchfs.engine.frame_pool import FramePool, frame_pool


def test_results_and_errors_reach_their_futures():
    pool = FramePool(workers=2, idle_seconds=0.5)
    futures = [pool.submit(pow, n, 2) for n in range(200)]
    assert [f.result(timeout=10) for f in futures] == [n * n for n in range(200)]
    failing = pool.submit(int, "not a number")
    with pytest.raises(ValueError, match="invalid literal"):
        failing.result(timeout=10)
    assert pool.submit(len, b"abc").result(timeout=10) == 3  # a worker survives a failing call
    assert pool.alive <= 2


def test_a_call_cancelled_before_a_worker_takes_it_never_runs():
    pool = FramePool(workers=1, idle_seconds=0.5)
    gate, ran = threading.Event(), []
    blocker = pool.submit(gate.wait, 10)
    later = pool.submit(ran.append, "ran")
    assert later.cancel()
    gate.set()
    assert blocker.result(timeout=10) is True
    assert pool.submit(len, b"").result(timeout=10) == 0  # runs after the cancelled one was skipped
    assert ran == [] and later.cancelled()


def test_workers_end_when_idle_and_calls_racing_their_end_are_all_answered():
    pool = FramePool(workers=2, idle_seconds=0.002)  # threads end about as often as calls come
    answered = 0
    for n in range(300):
        assert pool.submit(pow, n, 3).result(timeout=10) == n**3
        answered += 1
        if n % 7 == 0:
            time.sleep(0.004)  # past the idle time: the workers may be ending right now
    assert answered == 300
    deadline = time.monotonic() + 10
    while pool.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.alive == 0


def test_many_threads_submitting_at_once_get_their_own_results():
    pool = FramePool(workers=2, idle_seconds=0.01)
    wrong: list = []

    def caller(base: int) -> None:
        for n in range(100):
            got = pool.submit(lambda a, b: (a, b), base, n).result(timeout=20)
            if got != (base, n):
                wrong.append(got)

    threads = [threading.Thread(target=caller, args=(b,)) for b in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert wrong == [] and not any(t.is_alive() for t in threads)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")
def test_a_fork_child_starts_its_own_workers():
    assert frame_pool.submit(pow, 2, 10).result(timeout=10) == 1024  # the parent's workers are running now
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are not here; a call must still be answered
        code = 1
        try:
            code = 0 if frame_pool.submit(pow, 3, 3).result(timeout=10) == 27 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_call_is_answered_when_no_thread_can_be_started(monkeypatch):
    pool = FramePool(workers=2, idle_seconds=0.5)

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    caller = threading.get_ident()
    where = pool.submit(threading.get_ident)
    assert where.result(timeout=10) == caller  # ran in the calling thread
    assert pool.submit(pow, 5, 2).result(timeout=10) == 25
    assert pool.alive == 0
    monkeypatch.undo()
    assert pool.submit(pow, 6, 2).result(timeout=10) == 36  # a worker starts again, skipping the calls already run
    assert pool.alive >= 1
