"""A ``fork()`` while another thread of the parent holds a lock a child that keeps using the parent's store reaches
(forklocks1; hostile38 fixed the LRUs and row marks).

A child holds a replica of the forking thread only, every lock as it was (POSIX ``fork()``). Before: a child whose
parent had a thread inside the index's transaction log (every write transaction records itself there), the root's
lock-descriptor list (a child's first write opens its own ``delete.lock``), the store's sweeper lock or its sweeper's
stop event (a child's ``close()`` stopped the parent's sweeper, not there), an S3 store's
pairing check, client, data loader, readers' counts or in-process delete lock, a PostgreSQL index's pool opening, or
the pool log's filter, hung for ever at its first use of it (the S3 delete lock: StoreBusy for ever). Each such lock
is now made anew in a child (:func:`scratchfs.foundation.forks.renewed_in_child`). Each scenario holds one lock in a
thread, forks from the main thread, and the child must finish within its alarm; each runs in a fresh interpreter (a
pytest worker's own threads hold locks a fork copies, as ``tests/test_hostile38_fork_locks.py`` says).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path

import pytest

from tests.forking import holding, isolated
from tests.test_hostile38_fork_locks import _held_while

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")

_ROOT = Path(__file__).resolve().parent.parent
_CSV = _ROOT / "fixtures" / "tools" / "dpkg-query-multiline.csv"


def _scenario_store() -> None:
    from scratchfs.api.store import ScratchStore

    with tempfile.TemporaryDirectory(prefix="forklocks1-") as root, ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        first = scope.spill(_CSV.read_text())
        store.start_sweeper(3600)
        locks = {"txn_log": store.index.txn_log._lock, "sweeper": store._sweeper_lock,
                 "root_fds": store.blobs.locks._fds_lock, "sweeper_event": store._sweeper._stopped._cond}
        wrong = []
        for name, lock in locks.items():
            def work(name=name):
                handle = scope.spill(f"{name} " * 40)  # (a write: its transaction logged, delete.lock opened)
                store.stop_sweeper()
                return {"back": scope.read_range(handle.handle, 0, len(name)).data.decode(),
                        "first": scope.read_range(first.handle, 0, 7).data.decode()}
            got = _held_while(holding(lock), work)
            if got != {"back": name, "first": _CSV.read_text()[:7]}:
                wrong.append((name, got))
        assert not wrong, wrong  # (every lock tried: a hung child reports {})


def _scenario_pairing_gate() -> None:
    from scratchfs.engine.pairing import Gate

    gate, ran = Gate(), []
    stuck: list = []

    def check():
        ran.append(os.getpid())
        if stuck:  # (the parent's check: waits on the server while the main thread forks)
            stuck[0].set()
            stuck[1].wait(10)
            raise OSError("the parent's check gave up")

    gate.set(check)

    def hold(inside, go_on):
        stuck[:] = [inside, go_on]
        try:
            gate.wait()
        except OSError:
            pass

    def work():
        stuck.clear()
        gate.wait()
        return {"ran_here": ran[-1] == os.getpid(), "pending": gate._check is not None}

    got = _held_while(hold, work)
    assert got == {"ran_here": True, "pending": False}, got


def _scenario_s3() -> None:
    from scratchfs.engine import s3_blobs
    from scratchfs.engine.s3_blobs import S3Blobs

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "forklocks1")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "forklocks1")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    blobs = S3Blobs("s3://forklocks1/prefix", 1 << 16, 3, timeout=1.0)
    wrong = []
    for name in ("_client_lock", "_LOADER_LOCK", "_local_lock", "held"):
        lock = {"_client_lock": lambda: blobs._client_lock, "_LOADER_LOCK": lambda: s3_blobs._LOADER_LOCK,
                "_local_lock": lambda: blobs._local_lock, "held": lambda: blobs.held._lock}[name]()

        def work():
            client = blobs.client()
            with blobs.delete_lock(True, 0.5):
                blobs.held.hold("key")
                last = blobs.held.release("key")
            return {"client": type(client).__name__, "last": last}

        got = _held_while(holding(lock), work)
        if got != {"client": "S3", "last": False}:
            wrong.append((name, got))
    assert not wrong, wrong


def _scenario_postgres_pool() -> None:
    from scratchfs.engine.pool_log import FILTER, POOL_NAME
    from scratchfs.engine.postgres_pool import IndexPool

    pool = IndexPool("postgresql://127.0.0.1:1/none", 1.0, 1, lambda conn: None)
    wrong = []
    for name, lock in (("pool", pool._lock), ("pool log", FILTER._lock)):
        def work():
            record = logging.LogRecord("psycopg.pool", logging.WARNING, __file__, 1, "error in %r: down",
                                       (POOL_NAME,), None)
            passed = FILTER.filter(record)
            pool.close()
            try:
                pool.pool()
            except Exception as exc:  # (StoreClosed: the pool is closed in the child)
                return {"passed": passed, "raised": type(exc).__name__}
            return {"passed": passed, "raised": None}

        FILTER.forget()
        got = _held_while(holding(lock), work)
        if got != {"passed": True, "raised": "StoreClosed"}:
            wrong.append((name, got))
    assert not wrong, wrong
    assert not pool.closed  # (the parent's pool is left as it was)


def _scenario_helper() -> None:
    from scratchfs.foundation import forks

    class Owner:
        pass

    owner = Owner()
    owner.lock = forks.renewed_in_child(owner, "lock", threading.RLock)
    kept = owner.lock
    got = _held_while(holding(owner.lock), lambda: {"renewed": owner.lock is not kept,
                                                     "free": owner.lock.acquire(timeout=1)})
    assert got == {"renewed": True, "free": True}, got
    assert owner.lock is kept  # (the parent's lock is the one it had)
    count = len(forks._RENEWED)
    forks.renewed_in_child(Owner(), "lock", threading.Lock)  # (an owner gone at once: its entry goes with it)
    assert len(forks._RENEWED) == count


def _isolated(scenario: str) -> None:
    isolated("tests.test_forklocks1_fork_locks", scenario)


def test_a_child_forked_while_a_thread_holds_a_store_lock_writes_and_reads():
    _isolated("_scenario_store")


def test_a_child_forked_while_a_thread_runs_the_pairing_check_runs_its_own():
    _isolated("_scenario_pairing_gate")


def test_a_child_forked_while_a_thread_holds_an_s3_lock_uses_the_bucket():
    _isolated("_scenario_s3")


def test_a_child_forked_while_a_thread_holds_a_postgres_pool_lock_goes_on():
    _isolated("_scenario_postgres_pool")


def test_renewed_in_child_makes_a_new_lock_in_a_child_only():
    _isolated("_scenario_helper")
