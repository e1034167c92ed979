"""Processes and threads on one root: no error reaches a caller, a live entry never reads as missing or partial.

Contents are self-describing (``reliability.harness.make_content``), so every read is checked against the only right
answer. Sweeps run with ``orphan_grace=0``: only the writers' locks protect their files in flight.
``SCRATCHFS_STRESS=1`` runs the mixed workload longer and with more processes.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import pytest

from reliability.harness import content_seed, make_content
from scratchfs import NotFound, ScratchStore, StoreBusy
from scratchfs.engine.sources import FileRange

REPO = Path(__file__).resolve().parent.parent
STRESS = bool(os.environ.get("SCRATCHFS_STRESS"))


def _child(code: str, *args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)


# -- the mixed workload -------------------------------------------------------------------------------------------

MIXED = """
    import json, random, sys, threading, time
    from reliability.harness import content_seed, make_content
    from scratchfs import NotFound, ScratchStore
    root, tag, seconds, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    errors, counts, kept, lock = [], {}, [], threading.Lock()

    def count(what):
        with lock:
            counts[what] = counts.get(what, 0) + 1

    def main(tid):
        rng = random.Random(f"{tag}-{tid}")
        mine, shared = store.scope(tag, f"t{tid}"), store.scope("shared", "all")
        handles = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            roll = rng.random()
            try:
                if roll < 0.15:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 100_000)
                    handle = mine.spill(make_content(seed, size), source_tool="t").handle
                    handles.append((handle, seed, size))
                    count("spill")
                elif roll < 0.3:
                    seed, size = rng.getrandbits(40), rng.randrange(64, 60_000)
                    shared.scratch_write(f"k{rng.randrange(3)}", make_content(seed, size))
                    count("overwrite of a shared key")
                elif roll < 0.55:
                    if content_seed(shared.scratch_read(f"k{rng.randrange(3)}")) is None:
                        raise AssertionError("a shared key read back partial or wrong bytes")
                    count("read of a shared key")
                elif roll < 0.75 and handles:
                    handle, seed, size = rng.choice(handles)
                    offset = rng.randrange(size + 1)
                    if mine.read_handle(handle, offset, 9000).data != make_content(seed, size)[offset:offset + 9000]:
                        raise AssertionError("a range read returned wrong bytes")
                    count("range read")
                elif roll < 0.8:
                    store.sweep()
                    count("sweep")
                elif roll < 0.93:
                    victim = store.scope(f"victim-{rng.randrange(2)}", f"{tag}-{tid}")
                    try:
                        handle = victim.spill(make_content(1, 5000), source_tool="t").handle
                        if victim.read_handle(handle, 0, 5000).data != make_content(1, 5000):
                            raise AssertionError("a victim read returned wrong bytes")
                        count("spill into a run being deleted")
                    except NotFound:
                        count("read of a deleted run: NotFound")
                else:
                    store.delete_run(f"victim-{rng.randrange(2)}")
                    count("delete_run")
            except Exception as exc:
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
        with lock:
            kept.extend([tag, f"t{tid}", *h] for h in handles)

    with ScratchStore(root, orphan_grace=0.0, frame_bytes=16384) as store:
        workers = [threading.Thread(target=main, args=(i,)) for i in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        integrity = store.integrity_check()
    print(json.dumps({"errors": errors, "counts": counts, "handles": kept, "integrity": integrity}))
"""


def test_processes_and_threads_share_one_root(tmp_path):
    root = tmp_path / "root"
    processes, threads, seconds = (6, 3, 20.0) if STRESS else (3, 3, 2.5)
    with ScratchStore(root) as store:
        shared = store.scope("shared", "all")
        for i in range(3):
            shared.scratch_write(f"k{i}", make_content(i, 1000))
    procs = [_child(MIXED, str(root), f"p{i}", str(seconds), str(threads)) for i in range(processes)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        results.append(json.loads(out))
    errors = [e for r in results for e in r["errors"]]
    assert errors == []  # no "database is locked", no NotFound for a live entry, no wrong bytes
    assert all(r["integrity"] == "ok" for r in results)
    counts = {}
    for r in results:
        for k, v in r["counts"].items():
            counts[k] = counts.get(k, 0) + v
    assert counts["spill"] > 10 and counts["read of a shared key"] > 10 and counts["sweep"] > 2
    assert counts["delete_run"] > 2
    with ScratchStore(root) as store:
        assert store.integrity_check() == "ok"
        for run, agent, handle, seed, size in [h for r in results for h in r["handles"]]:
            scope = store.scope(run, agent)
            assert scope.read_handle(handle, max(0, size - 100), 100).data == make_content(seed, size)[-100:]


def test_a_live_entry_never_reads_as_missing_or_partial(tmp_path):
    """Overwrites of one key, spills and sweeps racing with readers in three threads."""
    with ScratchStore(tmp_path / "root", orphan_grace=0.0, frame_bytes=4096) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("hot", make_content(0, 5000))
        handle = scope.spill(make_content(7, 50_000), source_tool="t").handle
        stop = threading.Event()
        problems: list[str] = []

        def guard(body):
            def run():
                while not stop.is_set():
                    try:
                        body()
                    except Exception as exc:
                        problems.append(f"{type(exc).__name__}: {exc}")
                        stop.set()
            return threading.Thread(target=run)

        sizes = iter(range(10**9))

        def overwrite():
            n = next(sizes)
            scope.scratch_write("hot", make_content(n, 64 + (n * 7919) % 20_000))

        def read_hot():
            if content_seed(scope.scratch_read("hot")) is None:
                raise AssertionError("partial or wrong bytes")

        def read_handle():
            if scope.read_handle(handle, 40_000, 10_000).data != make_content(7, 50_000)[40_000:]:
                raise AssertionError("wrong bytes")

        workers = [guard(overwrite), guard(overwrite), guard(read_hot), guard(read_hot), guard(read_handle),
                   guard(store.sweep)]
        for w in workers:
            w.start()
        time.sleep(8.0 if STRESS else 1.5)
        stop.set()
        for w in workers:
            w.join()
        assert problems == []
        assert store.integrity_check() == "ok"


def test_sweeps_never_remove_a_writer_file_or_directory(tmp_path):
    """A sweeper at grace 0 against writers that keep emptying and refilling their directories: for 2 s and at least
    100 rounds (the rounds, not the clock, make the race: a loaded machine ran 11 rounds in 2 s, failing)."""
    with ScratchStore(tmp_path / "root", orphan_grace=0.0) as store:
        stop = threading.Event()
        errors: list[str] = []

        def sweeper():
            while not stop.is_set():
                store.sweep()

        t = threading.Thread(target=sweeper)
        t.start()
        n = 0
        deadline = time.monotonic() + (10.0 if STRESS else 2.0)
        try:
            while time.monotonic() < deadline or n <= 100:
                scope = store.scope(f"r{n % 2}", f"a{n % 3}")
                try:
                    scope.scratch_write("k", b"v" * 100)
                    if scope.scratch_read("k") != b"v" * 100:
                        errors.append("wrong bytes")
                    scope.scratch_delete("k")  # the directory is empty again: a sweep may remove it
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                n += 1
        finally:
            stop.set()
            t.join()
        assert n > 100
        assert errors == []


def test_a_file_created_just_before_a_sweep_is_not_lost(store, monkeypatch):
    """The window between creating a blob file and locking it: a sweep at grace 0 runs right there."""
    from scratchfs.engine.local_blobs import Blobs

    real_create = Blobs._create
    swept = []

    def create_then_sweep(self, parts, name):
        fds = real_create(self, parts, name)
        if not swept:
            swept.append(store.sweep().orphans_removed)
        return fds

    monkeypatch.setattr(Blobs, "_create", create_then_sweep)
    scope = store.scope("run", "agent")
    stub = scope.spill(b"in flight " * 1000, source_tool="t")
    assert scope.read_handle(stub.handle).data[:10] == b"in flight "
    assert swept


def test_a_directory_removed_while_it_is_created_is_created_again(store, monkeypatch):
    """A sweep removes an empty run directory between its creation and the agent directory's."""
    real_mkdir = os.mkdir
    races = []

    def racing_mkdir(name, mode=0o777, *, dir_fd=None):
        if not races and name == "agent":
            races.append(name)
            os.rmdir(store.blobs.run_dir("new-run"))  # the sweeper's rmdir of an empty, old run directory
        return real_mkdir(name, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    scope = store.scope("new-run", "agent")
    stub = scope.spill(b"x" * 100, source_tool="t")
    assert races and scope.read_handle(stub.handle).data == b"x" * 100


def test_a_recycled_inode_never_serves_a_stale_seek_table(store, monkeypatch):
    """An overwrite's new file may get a freed inode number, the same size and (on coarse clocks) the same mtime as
    a file read before: the cached seek table must not be reused for it. Every file is given one identity here (the
    worst such file system), rather than waiting for this one to reuse an inode, which it does only when no other
    process takes the number first (the clean-clone CI skipped it once under load)."""
    store.blobs.segment_entry_bytes = 0  # a file per entry (a segment slice's cache key holds its offset)
    scope = store.scope("run", "agent")
    first = os.urandom(50_000)  # incompressible: the same file size each time
    scope.scratch_write("k", first)
    real_init = FileRange.__init__

    def one_identity(self, fd, st=None):
        real_init(self, fd, st)
        self.identity = (0, 1, self.size, 0)  # one device, inode and mtime for every file

    monkeypatch.setattr(FileRange, "__init__", one_identity)
    assert scope.scratch_read("k") == first  # its seek table is cached now, under that identity
    value = os.urandom(50_000)
    scope.scratch_write("k", value)
    assert scope.scratch_read("k") == value


# -- opening, forking ---------------------------------------------------------------------------------------------

OPENER = """
    import json, sys
    from scratchfs import ScratchStore
    root, tag = sys.argv[1], sys.argv[2]
    print("ready", flush=True)
    sys.stdin.readline()
    with ScratchStore(root) as store:
        scope = store.scope("run", tag)
        handle = scope.spill(tag.encode() * 1000, source_tool="t").handle
        scope.scratch_write("k", tag)
        ok = scope.read_handle(handle, 0, 10).data == (tag.encode() * 10)[:10]
        ok = ok and scope.scratch_read("k") == tag.encode()
    print(json.dumps(ok))
"""


def _forked_opener(root: Path, tag: str, go: int) -> tuple[int, int]:
    """A fork child that does what OPENER does once a byte comes on ``go``: ``(pid, read end of its answer)`` -- b"true"
    or a traceback. (A fork starts in milliseconds, an interpreter that imports scratchfs in 0.5-1 s under load.)"""
    answer, told = os.pipe()
    with warnings.catch_warnings():  # (Python 3.12+: this process runs threads; the child uses none of them)
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid:
        os.close(told)
        return pid, answer
    code = 1
    try:
        os.close(answer)
        os.read(go, 1)
        with ScratchStore(root) as store:
            scope = store.scope("run", tag)
            handle = scope.spill(tag.encode() * 1000, source_tool="t").handle
            scope.scratch_write("k", tag)
            ok = scope.read_handle(handle, 0, 10).data == (tag.encode() * 10)[:10]
            ok = ok and scope.scratch_read("k") == tag.encode()
        os.write(told, json.dumps(ok).encode())
        code = 0
    except BaseException:
        import traceback

        os.write(told, traceback.format_exc().encode())
    finally:
        os._exit(code)


def test_eight_processes_open_one_new_root_at_once(tmp_path):
    """Eight processes started apart (interpreters) open one new root at once, then eight forked children of this
    one: a second try, each of its children ready in milliseconds (the interpreters' second try took 5 s of the
    test's 10.6 at a load of 5)."""
    root = tmp_path / "root0"
    procs = [_child(OPENER, str(root), f"p{i}", stdin=subprocess.PIPE) for i in range(8)]
    for p in procs:
        assert p.stdout.readline() == b"ready\n"
    for p in procs:  # all at once
        p.stdin.write(b"go\n")
        p.stdin.flush()
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
        assert json.loads(out) is True
    root = tmp_path / "root1"
    go, ready = os.pipe()
    children = [_forked_opener(root, f"p{i}", go) for i in range(8)]
    os.write(ready, b"g" * 8)  # all at once
    for pid, answer in children:
        with os.fdopen(answer, "rb") as said:
            text = said.read().decode()
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 and text == "true", text
    os.close(go)
    os.close(ready)
    for root in (tmp_path / "root0", tmp_path / "root1"):
        with ScratchStore(root) as store:
            assert store.integrity_check() == "ok"
            assert len(store.list_entries_for_run("run")) == 16


@pytest.mark.parametrize("with_sweeper", [False, True])
def test_fork_after_use(tmp_path, with_sweeper):
    from scratchfs.engine import zstd_contexts

    with ScratchStore(tmp_path / "root", orphan_grace=0.0) as store:
        scope = store.scope("run", "parent")
        handle = scope.spill(b"parent data " * 5000, source_tool="t").handle
        scope.scratch_write("k", b"parent")
        assert scope.read_handle(handle, 0, 6).data == b"parent"
        frames = (store.blobs.level, store.blobs.frame_bytes)
        parent_conn, parent_cctx = store.index.conn(), zstd_contexts.compressor(*frames)
        if with_sweeper:
            store.start_sweeper(interval=0.001)
        r, w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+ warns about fork() with threads
            pid = os.fork()
        if pid == 0:  # the child: use the inherited store, never the parent's connection or zstd context
            code = 1
            try:
                os.close(r)
                child = store.scope("run", "child")
                out = {
                    "own connection": store.index.conn() is not parent_conn,
                    "own compressor": zstd_contexts.compressor(*frames) is not parent_cctx,
                    "reads the parent's": scope.read_handle(handle, 0, 6).data == b"parent",
                    "writes": child.read_handle(child.spill(b"child " * 5000).handle, 0, 5).data == b"child",
                    "sweeps": not store.sweep().skipped,
                }
                child.scratch_write("k", b"child")
                store.close()
                os.write(w, json.dumps(out).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            if not select.select([f], [], [], 60)[0]:
                os.kill(pid, signal.SIGKILL)  # a deadlocked child
            out = json.loads(f.read() or b"{}")
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert out and all(out.values()), out
        # the parent goes on with its own connection, which the child never closed
        assert store.index.conn() is parent_conn
        assert store.scope("run", "child").scratch_read("k") == b"child"
        assert scope.scratch_read("k") == b"parent"
        scope.scratch_write("k2", b"after the fork")
        assert store.integrity_check() == "ok"


# -- delete_run against itself and a spill ------------------------------------------------------------------------

DELETER = """
    import json, sys
    from scratchfs import ScratchStore
    with ScratchStore(sys.argv[1]) as store:
        print("ready", flush=True)
        for line in sys.stdin:
            try:
                print(json.dumps(["ok", store.delete_run(line.strip())]), flush=True)
            except Exception as exc:
                print(json.dumps([type(exc).__name__, str(exc)]), flush=True)
"""


def test_two_delete_runs_at_once_with_a_spill_in_flight(tmp_path):
    root = tmp_path / "root"
    deleters = [_child(DELETER, str(root), stdin=subprocess.PIPE) for _ in range(2)]
    rng = random.Random(4)
    try:
        with ScratchStore(root) as store:
            for d in deleters:
                assert d.stdout.readline() == b"ready\n"
            for round_ in range(6):
                run = f"doomed-{round_}"
                scope = store.scope(run, "agent")
                for i in range(5):
                    scope.spill(make_content(i, 3000), source_tool="t")
                store.flush()  # small spills' rows are written behind: committed now, for the deleters to count
                started, release = threading.Event(), threading.Event()

                def content(started=started, release=release):
                    # over SEGMENT_ENTRY_BYTES: the file exists (and is locked) once the next chunk is asked for
                    yield make_content(99, 70_000)
                    started.set()
                    release.wait(30)
                    yield make_content(98, 40_000)

                outcome = {}

                def spill(scope=scope, content=content, outcome=outcome):
                    try:
                        outcome["stub"] = scope.spill(content(), source_tool="t")
                    except Exception as exc:
                        outcome["error"] = exc

                spiller = threading.Thread(target=spill)
                spiller.start()
                assert started.wait(30)
                for d in deleters:  # both at once
                    d.stdin.write(f"{run}\n".encode())
                    d.stdin.flush()
                if round_ % 2:
                    time.sleep(rng.uniform(0, 0.01))
                    release.set()  # the spill finishes while the deletes run
                answers = [json.loads(d.stdout.readline()) for d in deleters]
                release.set()
                spiller.join(30)
                assert "error" not in outcome  # a write a delete overtook is ordered before it, never an error
                assert [a[0] for a in answers] == ["ok", "ok"]
                assert sum(a[1] for a in answers) in (5, 6)  # each row deleted once, by one of them
                if round_ % 2 == 0:  # held until both deletes were done: its file went with the run, no row
                    assert sum(a[1] for a in answers) == 5
                with pytest.raises(NotFound):
                    scope.read_handle(outcome["stub"].handle)
                assert store.list_entries_for_run(run) == []
                assert not store.blobs.run_dir(run).exists()
                assert not (root / "trash").exists() or list((root / "trash").iterdir()) == []
            assert store.integrity_check() == "ok"
    finally:
        for d in deleters:
            d.stdin.close()
            d.wait(30)
            d.stdout.close()
            d.stderr.close()


# -- busy timeout -------------------------------------------------------------------------------------------------

HOLDER = """
    import sys, time
    from scratchfs import ScratchStore
    with ScratchStore(sys.argv[1]) as store:
        with store.index.write("holding the write lock"):
            print("holding", flush=True)
            sys.stdin.readline()
    print("released", flush=True)
"""


# (no `alone` mark: the 0.5 s wait is the lock's timeout; 5 s, ten times it, is what catching a hang needs)
def test_contention_waits_then_raises_store_busy(tmp_path):
    root = tmp_path / "root"
    ScratchStore(root).close()
    holder = _child(HOLDER, str(root), stdin=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"holding\n"
        # a small spill's row written behind would not wait for the lock (its record is the acknowledged write)
        with ScratchStore(root, busy_timeout=0.5, index_write_behind=False) as store:
            scope = store.scope("run", "agent")
            start = time.monotonic()
            with pytest.raises(StoreBusy, match="busy timeout"):
                scope.spill(b"x" * 100, source_tool="t")
            assert 0.4 < time.monotonic() - start < 5
            assert list((root / "runs").rglob("*.zst")) == []  # the refused spill left no file
            holder.stdin.write(b"release\n")
            holder.stdin.flush()
            assert holder.stdout.readline() == b"released\n"
            assert scope.read_handle(scope.spill(b"y" * 100, source_tool="t").handle).data == b"y" * 100
    finally:
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()
        holder.stderr.close()


# -- zstd contexts ------------------------------------------------------------------------------------------------

def test_zstd_contexts_are_never_shared_between_threads(tmp_path, monkeypatch):
    import zstandard

    from scratchfs.engine import zstd_contexts

    misuse: list[str] = []

    class Owned:
        """A zstd context that records the thread that made it and complains when another thread uses it."""

        def __init__(self, inner):
            self._inner, self._owner = inner, threading.get_ident()

        def __getattr__(self, name):
            attr = getattr(self._inner, name)
            if callable(attr) and threading.get_ident() != self._owner:
                misuse.append(name)
            return attr

    class Patched:
        def __getattr__(self, name):
            return getattr(zstandard, name)

        @staticmethod
        def ZstdCompressor(*args, **kwargs):
            return Owned(zstandard.ZstdCompressor(*args, **kwargs))

        @staticmethod
        def ZstdDecompressor(*args, **kwargs):
            return Owned(zstandard.ZstdDecompressor(*args, **kwargs))

    monkeypatch.setattr(zstd_contexts, "zstandard", Patched())
    monkeypatch.setattr(zstd_contexts, "_contexts", type(zstd_contexts._contexts)())
    made = []
    with ScratchStore(tmp_path / "root", frame_bytes=4096) as store:
        def work(i):
            scope = store.scope("run", f"a{i}")
            for n in range(30):
                data = make_content(n, 3000 + 5000 * (n % 5))
                h = scope.spill(data, source_tool="t").handle
                assert scope.read_handle(h, 100, 5000).data == data[100:5100]
                assert scope.read_handle(h, match=data[200:210]).windows
            made.append((zstd_contexts.compressor(store.blobs.level, store.blobs.frame_bytes),
                         zstd_contexts.decompressor()))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(made) == 4
    assert len({id(c) for c, _ in made}) == 4 and len({id(d) for _, d in made}) == 4  # one of each per thread
    assert misuse == []


def test_a_fork_child_made_while_a_sweep_held_its_lock_does_not_keep_it(tmp_path):
    """The sweep lock is a ``flock`` of an open file description a fork() child shares: once the parent's sweep
    lets it go, neither the child nor the parent may find it still held by the child's copy."""
    with ScratchStore(tmp_path / "root") as store:
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            with store.blobs.file_lock("sweep.lock", 5) as locked:
                assert locked
                held.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        assert held.wait(10)
        r, w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: the holding thread does not exist here, its descriptor does
            code = 1
            try:
                os.close(r)
                time.sleep(0.5)  # the parent's sweep ends meanwhile
                code = 0 if not store.sweep(wait=5).skipped else 3
            except BaseException as exc:
                os.write(w, repr(exc).encode())
            finally:
                os._exit(code)
        os.close(w)
        release.set()
        holder.join(10)
        assert not store.sweep(wait=5).skipped  # the parent, while the child lives on with its copy
        _, status = os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as f:
            assert f.read() == b""
        assert os.waitstatus_to_exitcode(status) == 0
