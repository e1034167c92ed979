"""Per-process state a ``fork()`` child must not take over from its parent (leftovers4).

An S3 store's counts of open readers (``engine.s3_readers.HeldKeys``) were copied into a child: a child that deleted
an object a parent thread was reading at the fork deferred that deletion (until a sweep found the orphan), though the
parent's reader is in another process. A child now starts with no held keys. A :class:`DeferredStore` whose store
was not open at the fork had its retry thread in the parent only: the child's store never opened; a child now starts
its own thread when it asks for the store. Each scenario runs in a fresh interpreter (a pytest worker's own threads
hold locks a fork copies, as ``tests/test_hostile38_fork_locks.py`` says).
"""

from __future__ import annotations

import os
import threading
import types
from pathlib import Path

import pytest

from tests.forking import holding, in_child, isolated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")

_ROOT = Path(__file__).resolve().parent.parent


def _scenario_held_keys() -> None:
    from scratchfs.engine.s3_blobs import S3Blobs

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "leftovers4")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "leftovers4")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    blobs = S3Blobs("s3://leftovers4/prefix", 1 << 16, 3, timeout=1.0)
    reading = threading.Thread(target=blobs.held.hold, args=("prefix/read-by-the-parent",))
    reading.start()  # (a parent thread reads the object while the main thread forks)
    reading.join()
    keys = ["prefix/read-by-the-parent", "prefix/other"]

    def work():
        now = blobs.held.defer(keys)  # (the child deletes both: none of its readers holds either)
        blobs.held.hold("prefix/other")
        return {"now": now, "later": blobs.held.defer(["prefix/other"]), "last": blobs.held.release("prefix/other")}

    got = in_child(work, 10)
    assert got == {"now": keys, "later": [], "last": True}, got
    assert blobs.held.defer(keys) == ["prefix/other"]  # (the parent's reader still holds its key here)
    assert blobs.held.release("prefix/read-by-the-parent") is True


def _scenario_deferred_store() -> None:
    from scratchfs.api.deferred_store import DeferredStore
    from scratchfs.foundation.errors import StorageError

    parent = os.getpid()
    opened = types.SimpleNamespace(close=lambda: None)

    def open_store():
        if os.getpid() == parent:  # (the index is out of reach from the parent for the whole scenario)
            error = StorageError("the index is down")
            error.unavailable = True  # type: ignore[attr-defined]
            raise error
        return opened

    deferred = DeferredStore(open_store, retry=0.05).start()
    assert deferred.store is None

    def work():
        try:
            deferred.get()
            first = "open"
        except StorageError as exc:
            first = "unavailable" if getattr(exc, "unavailable", False) else str(exc)
        done = threading.Event()
        while deferred.store is None and not done.wait(0.05):  # (ended by the child's alarm if it never opens)
            pass
        got = deferred.get() is opened
        deferred.close()
        return {"first": first, "opened": got}

    got = in_child(work, 20, hung={"hung": True})
    assert got == {"first": "unavailable", "opened": True}, got
    assert deferred.store is None  # (the parent still waits for its index)
    deferred.close()


def _isolated(scenario: str) -> None:
    isolated("tests.test_leftovers4_fork_state", scenario)


def test_a_fork_child_starts_with_no_held_s3_keys():
    _isolated("_scenario_held_keys")


def test_a_fork_child_of_a_deferred_store_opens_it_with_its_own_thread():
    _isolated("_scenario_deferred_store")


def _scenario_one_mechanism() -> None:
    from scratchfs.engine.caches import LRU
    from scratchfs.foundation import forks

    class Owner:
        def __init__(self) -> None:
            self.count = 0
            self.lock = forks.renewed_in_child(self, "lock", threading.Lock, then=Owner.recount)
            self.seen = forks.renewed_in_child(self, "seen", dict, then=Owner.recount)  # (one hook, two names)

        def recount(self) -> None:
            self.count += 1

    owner = Owner()
    cache: LRU[int, str] = LRU(10, max_weight=10, weigh=len)
    cache.put(1, "abcd")
    cache.put(2, "efgh")
    cache._weight = 4  # (as a parent thread's put cut between storing a value and adding its weight leaves it)
    got = in_child(lambda: {"count": owner.count, "weight": cache._weight, "len": len(cache),
                            "after_put": (cache.put(3, "ijkl"), len(cache), cache._weight)[1:]}, 10)
    assert got == {"count": 1, "weight": 8, "len": 2, "after_put": [2, 8]}, got  # (counted again: 1 dropped)
    assert owner.count == 0 and cache._weight == 4  # (the parent's as they were)


def test_renewed_in_child_calls_its_hook_and_counts_an_lru_again():
    _isolated("_scenario_one_mechanism")



def _scenario_other_registries() -> None:
    """The modules that made their locks anew by a fork hook of their own missed some: write_behind's lock of its
    groups (a child's first store on an index hung if a parent thread was making a group) and every frame pool but
    the process's own (a child's first submit to one hung if a parent thread held its lock)."""
    from scratchfs.engine import write_behind
    from scratchfs.engine.frame_pool import FramePool
    from scratchfs.engine.worker_pipe import Pool
    from tests.test_hostile38_fork_locks import _held_while

    frames = FramePool(workers=1, idle_seconds=0.5)
    workers = Pool(__file__, 1, "leftovers4")
    workers.alive = 1  # (a worker the parent started: not the child's)
    group = write_behind._group((1, 2))
    group.count(3)  # (rows the parent queued: not the child's)
    wrong = []
    for name, lock, work in (
            ("groups", write_behind._GROUPS_LOCK, lambda: {"pending": write_behind._group((1, 2)).pending}),
            ("group", group.lock, lambda: (group.count(1), {"pending": group.pending})[1]),
            ("frames", frames._lock, lambda: {"pending": frames.submit(len, b"abc").result(timeout=5)}),
            ("workers", workers.cond, lambda: {"pending": workers.counts()[0]})):
        got = _held_while(holding(lock), work)
        want = {"groups": 0, "group": 1, "frames": 3, "workers": 0}[name]
        if got != {"pending": want}:
            wrong.append((name, got))
    assert not wrong, wrong
    assert group.pending == 3 and workers.alive == 1  # (the parent's as they were)


def test_a_child_forked_while_a_thread_holds_a_write_behind_or_pool_lock_goes_on():
    _isolated("_scenario_other_registries")
