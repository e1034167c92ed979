"""SIGKILL at random moments and at chosen points: nothing acknowledged is lost, nothing half-written is visible.

The short version of ``reliability/run.py`` (see ``reliability/harness.py`` for the workers, the model and the
checker). Workers report every operation through a pipe before they go on; after each round of kills a new process
reopens the store and checks it entry by entry, then sweeps and looks for leftovers. ``SCRATCHFS_STRESS=1`` runs
more rounds.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from reliability import harness
from scratchfs import ScratchStore

pytestmark = pytest.mark.usefixtures("segments_on_for_segment_cases")

REPO = Path(__file__).resolve().parent.parent
STRESS = bool(os.environ.get("SCRATCHFS_STRESS"))
VIOLATIONS = ("integrity failures", "missing blobs", "corrupt blobs", "wrong bytes", "entries lost",
              "unexplained entries", "expired entries visible", "half-done deletes", "orphans left", "trash left")


def _assert_clean(result: harness.RoundResult) -> None:
    assert result.problems == []
    assert {k: v for k, v in result.report.items() if k in VIOLATIONS} == {}
    assert result.counts["errors"] == 0, [k for k in result.counts if k.startswith("error")]
    assert result.counts["bad"] == 0, [k for k in result.counts if k.startswith("bad")]
    assert result.counts["workers that died otherwise"] == 0


def test_random_kills(tmp_path):
    root = str(tmp_path / "root")
    workers, rounds = (4, 40) if STRESS else (3, 5)  # 15 SIGKILLs (27 before: 35 s of the suite), 160 stressed
    models = {wid: harness.WorkerModel() for wid in range(workers)}
    rng = random.Random(2024)
    kills, interrupted, checked, acks = 0, Counter(), 0, 0
    for _ in range(rounds):
        result = harness.crash_round(root, models, rng)
        _assert_clean(result)
        kills += result.kills
        interrupted += result.interrupted
        checked += result.report.get("entries checked", 0)
        acks += result.counts["acks"]
    assert kills == workers * rounds  # every worker was killed, none died on its own
    mid_operation = sum(n for op, n in interrupted.items() if op not in ("start-up", "between operations"))
    assert mid_operation >= rounds // 2  # most kills hit an operation in flight
    # (how many operations a worker finishes before its kill depends on the machine's speed -- the kill moment is
    # wall-clock -- so the bound is only that the workers did work and the checker read it: 115-151 acks at a
    # load of 9 against > 250 on an idle machine)
    assert acks >= rounds and checked >= rounds


@pytest.mark.parametrize("point", list(harness.KILL_POINTS))
def test_kill_at_each_point(tmp_path, point):
    result = harness.kill_point_round(str(tmp_path / "root"), point)
    _assert_clean(result)
    assert result.kills == 1
    assert result.interrupted == Counter({harness.KILL_POINTS[point][4]: 1})  # it died inside that operation
    assert result.report["orphans reclaimed by the sweep"] >= 1  # at least the planted orphan
    assert result.counts["acks"] == 7  # the history before the point


# -- locks of killed processes ------------------------------------------------------------------------------------

HOLDERS = {
    "the index write lock": """
        with store.index.write("holding"):
            ready()
    """,
    "the sweep lock": """
        import scratchfs.engine.sweeper as sweeper
        sweeper._remove_orphans = lambda *args: ready()
        store.sweep()
    """,
    "the delete lock": """
        store.scope("run", "agent").spill(b"x" * 100)
        store.blobs.move_to_trash = lambda directory: ready()
        store.delete_run("run")
    """,
    "a blob file's lock (a spill in flight)": """
        def content():
            yield b"x" * 70_000  # over SEGMENT_ENTRY_BYTES: its own blob file
            ready()
        store.scope("run", "agent").spill(content())
    """,
}

HOLDER = """
    import sys, time
    from scratchfs import ScratchStore

    def ready():
        print("holding", flush=True)
        time.sleep(600)
"""


def _hold_and_kill(root: Path, body: str, before: str = "") -> None:
    """Run ``before``, open the store, run ``body`` until it calls ready() (holding a lock), then SIGKILL it."""
    code = (textwrap.dedent(HOLDER) + textwrap.dedent(before) + "store = ScratchStore(sys.argv[1])\n"
            + textwrap.dedent(body))
    p = subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"holding\n", p.stderr.read().decode()
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
    assert p.returncode == -signal.SIGKILL


@pytest.mark.parametrize("lock", list(HOLDERS))  # (no `alone` mark: the work takes a few tenths of the 5 s bound,
# which a wait for the dead holder's lock, the 5 s busy timeout, passes)
def test_a_killed_lock_holder_blocks_nobody(tmp_path, lock):
    root = tmp_path / "root"
    ScratchStore(root).close()
    _hold_and_kill(root, HOLDERS[lock])
    start = time.monotonic()
    with ScratchStore(root, busy_timeout=5.0, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(b"after the kill" * 100, source_tool="t").handle
        result = store.sweep(wait=5.0)
        store.delete_run("other")
        assert scope.read_handle(handle, 0, 14).data == b"after the kill"
        assert not result.skipped
        assert store.integrity_check() == "ok"
        leftovers = [p for p in (root / "runs").rglob("*.zst") if p.name[:-4] not in store.index.blobs()]
    assert time.monotonic() - start < 5.0  # well within the lock timeout: nobody waited for the dead holder
    assert leftovers == []  # a killed spill's file was an orphan, and the sweep took it
    assert set(os.listdir(root / "locks")) <= {"index.lock", "sweep.lock", "delete.lock", "delete.gate", "sweep.cursor"}
    assert [p for p in root.rglob("*.lock") if p.parent != root / "locks"] == []  # no lock inside runs/ or trash/


def test_killed_while_creating_the_schema_of_a_new_root(tmp_path):
    root = tmp_path / "new"
    before = """
        import contextlib
        import scratchfs.engine.sqlite_index as index
        real_write = index.Index.write

        @contextlib.contextmanager
        def write(self, doing):
            with real_write(self, doing) as conn:
                if doing == "creating the schema":  # holding the schema lock and the write lock, mid-transaction
                    conn.execute("CREATE TABLE half_done (x)")
                    ready()
                yield conn

        index.Index.write = write
    """
    _hold_and_kill(root, "", before)
    start = time.monotonic()
    with ScratchStore(root, busy_timeout=5.0) as store:
        assert store.scope("r", "a").scratch_write("k", b"v").size == 1
        assert store.integrity_check() == "ok"
        tables = {row[0] for row in store.index.conn().execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "half_done" not in tables and "entries" in tables
    assert time.monotonic() - start < 5.0


# -- a writer in flight -------------------------------------------------------------------------------------------

SLOW_WRITER = """
    import sys
    from scratchfs import ScratchStore

    def content():
        yield b"first part " * 7000  # over SEGMENT_ENTRY_BYTES: a blob file of its own
        print("writing", flush=True)
        sys.stdin.readline()
        yield b"second part " * 1000

    with ScratchStore(sys.argv[1]) as store:
        scope = store.scope("run", "agent")
        stub = scope.spill(content())
        print(stub.handle, flush=True)
"""


@pytest.mark.parametrize("grace", [0.0, 300.0])
def test_a_live_writer_file_survives_sweeps_however_old(tmp_path, grace):
    root = tmp_path / "root"
    ScratchStore(root).close()
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(SLOW_WRITER), str(root)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"writing\n", p.stderr.read().decode()
        (in_flight,) = (root / "runs").rglob("*.zst")
        os.utime(in_flight, (time.time() - 86400, time.time() - 86400))  # a day old: far past any grace
        with ScratchStore(root, orphan_grace=grace) as store:
            for _ in range(3):
                assert store.sweep().orphans_removed == 0
            assert in_flight.exists()
            p.stdin.write(b"go on\n")
            p.stdin.flush()
            handle = p.stdout.readline().decode().strip()
            assert p.wait(30) == 0
            data = b"first part " * 7000 + b"second part " * 1000
            sl = store.scope("run", "agent").read_handle(handle, 0, 65536)
            assert (sl.data, sl.size) == (data[:65536], len(data))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for f in (p.stdin, p.stdout, p.stderr):
            f.close()


def test_a_killed_writer_file_goes_once_past_the_grace_period(tmp_path):
    root = tmp_path / "root"
    ScratchStore(root).close()
    _hold_and_kill(root, HOLDERS["a blob file's lock (a spill in flight)"])
    (left,) = (root / "runs").rglob("*.zst")
    with ScratchStore(root, orphan_grace=300.0) as store:
        assert store.sweep().orphans_removed == 0  # younger than the grace period: it stays
        os.utime(left, (time.time() - 301, time.time() - 301))
        assert store.sweep().orphans_removed == 1
    assert not left.exists()


# -- durable ------------------------------------------------------------------------------------------------------

def test_durable_store_syncs_file_and_directory_before_the_row(tmp_path, monkeypatch):
    from scratchfs.engine import local_blobs as blobs
    from scratchfs.engine.sqlite_index import Index

    events = []
    real_fsync, real_put, real_put_many = os.fsync, Index.put, Index.put_many

    def fsync(fd):
        events.append("fsync " + ("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file"))
        return real_fsync(fd)

    def put(self, *args):
        events.append("commit")
        return real_put(self, *args)

    def put_many(self, *args):  # a spill's row written behind (engine.write_behind): committed after it returned
        events.append("commit")
        return real_put_many(self, *args)

    monkeypatch.setattr(blobs.os, "fsync", fsync)
    monkeypatch.setattr(Index, "put", put)
    monkeypatch.setattr(Index, "put_many", put_many)
    with ScratchStore(tmp_path / "root", durable=True) as store:
        assert store.index.conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        store.scope("run", "agent").spill(b"x" * 10_000, source_tool="t")
        store.flush()
    first_commit = events.index("commit")
    assert "fsync file" in events[:first_commit] and "fsync dir" in events[:first_commit]


def test_the_checker_counts_an_expired_value_but_not_its_replacement_in_flight():
    """The checker's own logic: a short-lived value past its expiry must be gone, unless the write in flight at the
    kill (with a new value and its own TTL) replaced it."""
    from collections import Counter as Count

    ident = ("scratch", "run", "agent", "k0")
    expected = {ident: {"seed": 1, "exp_lo": 10.0, "exp_hi": 11.0}}
    overwrite = {"op": "scratch_write", "run": "run", "agent": "agent", "key": "k0", "seed": 2}
    for seen_seed, pending, violations in [
        (1, None, {"expired entries visible": 1}),       # the expired value itself is still visible
        (2, overwrite, {}),                              # the overwrite in flight landed: a new, live value
        (3, overwrite, {"wrong bytes": 1}),              # a value nobody wrote
    ]:
        report, problems = Count(), []
        harness._compare(expected, {ident: {"seed": seen_seed}}, pending, 20.0, 20.1, report, problems)
        assert dict(report) == violations


KILLED_DELETES = {  # (README, How it works and Crash safety: a delete that crashed half-way)
    "before the directory moves": HOLDERS["the delete lock"],
    "after the directory moved to trash/": """
        store.scope("run", "agent").spill(b"x" * 100)
        real = store.blobs.move_to_trash
        store.blobs.move_to_trash = lambda directory: (real(directory), ready())
        store.delete_run("run")
    """,
}


@pytest.mark.parametrize("point", list(KILLED_DELETES))
def test_a_delete_killed_half_way_is_finished_by_the_sweeps(tmp_path, point):
    """The next sweep deletes the hidden rows and empties ``trash/`` at once (no grace period); files the delete had
    not moved stay in the run's folder as orphans, removed only once older than the grace period."""
    root = tmp_path / "root"
    ScratchStore(root).close()
    _hold_and_kill(root, KILLED_DELETES[point])
    moved = point.startswith("after")
    with ScratchStore(root, orphan_grace=300.0) as store:
        assert store.list_entries_for_run("run") == []  # hidden by the committed mark
        assert bool(os.listdir(root / "trash")) == moved and (root / "runs" / "run").exists() != moved
        store.sweep(full=True)
        assert store.index.conn().execute("SELECT count(*) FROM entries WHERE run_id = 'run'").fetchone()[0] == 0
        assert os.listdir(root / "trash") == []  # emptied at once, whatever its age
        left = [p for p in (root / "runs").rglob("*") if p.is_file()]
        assert len(left) == (0 if moved else 1)  # a young orphan in the run's folder: it stays
        for path in left:
            os.utime(path, (time.time() - 301, time.time() - 301))
        assert store.sweep(full=True).orphans_removed == len(left)
    assert [p for p in (root / "runs").rglob("*") if p.is_file()] == []
