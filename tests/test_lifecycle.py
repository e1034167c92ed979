"""close() is safe from any thread at any time (issue 9, crashes).

Each scenario runs 20 times inside a child process, so that a segfault (a connection closed under a running
statement) is seen as a failed test, not as a dead pytest. Every call in flight must finish or raise StoreClosed,
every later call must raise StoreClosed, and nothing acknowledged may be lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.errors import StorageError, StoreClosed

RUNS = 20


def _child(tmp_path, body: str) -> dict:
    """Run ``body`` (which prints one JSON line) in a fresh interpreter; fail on any death by signal."""
    code = "import json, os, sys, threading, time\nfrom scratchfs import ScratchStore\n" \
           "from scratchfs.foundation.errors import StoreClosed\n" + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, timeout=240)
    assert proc.returncode == 0, f"child died with {proc.returncode}: {proc.stderr.decode()[-2000:]}"
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


READERS_VS_CLOSE = """
    root = sys.argv[1]
    outcomes = {"read": 0, "closed": 0, "other": []}
    lock = threading.Lock()
    for run in range(RUNS):
        store = ScratchStore(os.path.join(root, f"r{run}"))
        scope = store.scope("run", "agent")
        data = bytes(range(256)) * 4096  # 1 MiB, many frames
        handle = scope.spill(data, source_tool="t").handle
        started = threading.Barrier(5)

        def reader():
            started.wait()
            for i in range(1_000_000):
                try:
                    got = scope.read_handle(handle, (i * 4099) % len(data), 4096).data
                    assert got == data[(i * 4099) % len(data):][:4096], "wrong bytes"
                    with lock:
                        outcomes["read"] += 1
                except StoreClosed:
                    with lock:
                        outcomes["closed"] += 1
                    return
                except BaseException as exc:
                    with lock:
                        outcomes["other"].append(repr(exc))
                    return

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        started.wait()
        time.sleep(0.002 * (run % 10))
        store.close()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads)
    print(json.dumps(outcomes))
""".replace("RUNS", str(RUNS))


def test_close_while_threads_read(tmp_path):
    out = _child(tmp_path, READERS_VS_CLOSE)
    assert out["other"] == []
    assert out["closed"] == 4 * RUNS  # every reader saw StoreClosed, none died
    assert out["read"] > 0


SWEEP_OUTLIVES_CLOSE = """
    import logging
    root = sys.argv[1]
    errors = []

    class Catch(logging.Handler):
        def emit(self, record):
            errors.append(record.getMessage())

    logging.getLogger("scratchfs").addHandler(Catch(level=logging.ERROR))
    survived = 0
    for run in range(RUNS):
        now = [1_000_000.0]
        store = ScratchStore(os.path.join(root, f"r{run}"), busy_timeout=0.001, clock=lambda: now[0],
                             orphan_grace=0.0)
        scope = store.scope("run", "agent")
        for i in range(300):
            scope.scratch_write(f"k{i}", b"x" * 100, ttl=1)
        now[0] += 10  # every entry expired: a sweep has 300 rows and files to remove
        store.start_sweeper(interval=0.0005)
        time.sleep(0.001 * (run % 5))
        sweeper = next((t for t in threading.enumerate() if t.name == "scratchfs-sweeper"), None)
        store.close()  # joins for the busy timeout (1 ms): the sweep outlives it
        if sweeper is not None:
            sweeper.join(30)
            survived += not sweeper.is_alive()
        try:
            scope.scratch_list()
        except StoreClosed:
            pass
        else:
            raise AssertionError("a closed store answered")
    print(json.dumps({"ended": survived, "errors": errors}))
""".replace("RUNS", str(RUNS))


def test_close_while_a_background_sweep_runs(tmp_path):
    out = _child(tmp_path, SWEEP_OUTLIVES_CLOSE)
    assert out["errors"] == []  # the sweeper ended quietly on StoreClosed, nothing logged as a failure
    assert out["ended"] == RUNS


WRITERS_VS_CLOSE = """
    root = sys.argv[1]
    acked, closed, other = [], [], []
    lock = threading.Lock()
    for run in range(RUNS):
        path = os.path.join(root, f"r{run}")
        store = ScratchStore(path)
        barrier = threading.Barrier(4)

        def writer(w, store=store, path=path):
            scope = store.scope("run", f"w{w}")
            barrier.wait()
            for i in range(100_000):
                value = f"{w}-{i}-".encode() * 50
                try:
                    if i % 2:
                        handle = scope.spill(value * 10).handle
                        item = (path, f"w{w}", "h", handle, (value * 10).hex())
                    else:
                        scope.scratch_write(f"k{i}", value)
                        item = (path, f"w{w}", "k", f"k{i}", value.hex())
                    with lock:
                        acked.append(item)
                except StoreClosed:
                    closed.append(w)
                    return
                except BaseException as exc:
                    with lock:
                        other.append(repr(exc))
                    return

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
        for t in threads:
            t.start()
        barrier.wait()
        time.sleep(0.003 * (run % 7))
        store.close()
        for t in threads:
            t.join(30)
    lost = 0
    for path, agent, kind, key, hexdata in acked:
        with ScratchStore(path) as store:
            scope = store.scope("run", agent)
            got = scope.scratch_read(key) if kind == "k" else scope.read_handle(key, 0, 10**6).data
            lost += got != bytes.fromhex(hexdata)
    print(json.dumps({"acked": len(acked), "closed": len(closed), "other": other, "lost": lost}))
""".replace("RUNS", str(RUNS))


def test_close_while_threads_write_loses_nothing_acknowledged(tmp_path):
    out = _child(tmp_path, WRITERS_VS_CLOSE)
    assert out["other"] == []
    assert out["closed"] == 3 * RUNS
    assert out["acked"] > 0 and out["lost"] == 0


def test_every_call_after_close_raises_store_closed(tmp_path):
    store = ScratchStore(tmp_path)
    scope = store.scope("r", "a")
    handle = scope.spill(b"x" * 20000).handle
    scope.scratch_write("k", b"v")
    store.close()
    calls = {
        "spill": lambda: scope.spill(b"y" * 20000),
        "read_handle": lambda: scope.read_handle(handle),
        "scratch_write": lambda: scope.scratch_write("k", b"w"),
        "scratch_read": lambda: scope.scratch_read("k"),
        "scratch_list": scope.scratch_list,
        "scratch_delete": lambda: scope.scratch_delete("k"),
        "list_entries": store.list_entries,
        "delete_run": lambda: store.delete_run("r"),
        "sweep": store.sweep,
        "integrity_check": store.integrity_check,
    }
    for name, call in calls.items():
        with pytest.raises(StoreClosed):
            call()
        assert name
    assert issubclass(StoreClosed, StorageError)
    store.close()  # idempotent
    with ScratchStore(tmp_path) as again:  # nothing was lost
        assert again.scope("r", "a").scratch_read("k") == b"v"


def test_close_from_another_thread_lets_a_running_statement_finish(tmp_path):
    """A thread holds a checkout (as a long statement would) while another closes: the holder finishes its
    statement on a live connection, and its connection is closed when the checkout ends."""
    store = ScratchStore(tmp_path)
    store.scope("r", "a").scratch_write("k", b"v")
    inside, release, result = threading.Event(), threading.Event(), {}

    def holder():
        with store.index.connections.use() as conn:
            inside.set()
            release.wait(10)
            result["rows"] = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        result["after"] = conn

    t = threading.Thread(target=holder)
    t.start()
    assert inside.wait(10)
    closer = threading.Thread(target=store.close)
    closer.start()
    closer.join(10)
    assert not closer.is_alive()  # close() does not wait for the statement
    release.set()
    t.join(10)
    assert result["rows"] == 1
    with pytest.raises(Exception, match="closed"):  # closed by its own thread once the checkout ended
        result["after"].execute("SELECT 1")


def _sweeper_thread() -> threading.Thread | None:
    return next((t for t in threading.enumerate() if t.name == "scratchfs-sweeper"), None)


def test_sweeper_thread_closes_its_connection(tmp_path, monkeypatch):
    from scratchfs.engine.sqlite_index import Index

    opened = []
    monkeypatch.setattr(Index, "on_connect", lambda conn: opened.append((threading.current_thread().name, conn)))
    store = ScratchStore(tmp_path)
    store.start_sweeper(interval=0.001)
    deadline = time.monotonic() + 10
    while not any(name == "scratchfs-sweeper" for name, _ in opened) and time.monotonic() < deadline:
        time.sleep(0.005)
    sweeper = _sweeper_thread()
    store.stop_sweeper()
    if sweeper is not None:
        sweeper.join(10)
    assert _sweeper_thread() is None
    theirs = [conn for name, conn in opened if name == "scratchfs-sweeper"]
    assert theirs
    for conn in theirs:
        with pytest.raises(Exception, match="closed"):
            conn.execute("SELECT 1")
    store.scope("r", "a").scratch_write("k", b"v")  # the store itself is still open
    store.close()


def test_a_background_sweep_refused_by_the_store_is_one_log_line_and_a_bug_keeps_its_traceback(caplog):
    """A busy index made the background sweeper log a whole traceback: an expected refusal (StoreBusy,
    StorageError) is one line naming it; only an unexpected exception is logged with its traceback."""
    import logging

    from scratchfs.engine.sweeper import Sweeper
    from scratchfs.foundation.errors import StoreBusy

    failures = iter([StoreBusy("the index stayed locked for 5 s"), ValueError("a bug")])
    done = threading.Event()

    def sweep_once():
        failure = next(failures, None)
        if failure is None:
            done.set()
            return
        raise failure

    with caplog.at_level(logging.ERROR, logger="scratchfs"):
        sweeper = Sweeper(sweep_once, 0.001)
        sweeper.start()
        assert done.wait(10)
        sweeper.stop(10)
    busy, bug = [r for r in caplog.records if r.name == "scratchfs.engine.sweeper"]
    assert busy.exc_info is None
    assert busy.getMessage() == ("scratchfs background sweep failed (busy: the index stayed locked for 5 s); "
                                 "retrying in 0 s")
    assert bug.exc_info is not None and bug.exc_info[0] is ValueError
