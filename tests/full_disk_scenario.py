"""The full-disk scenario of ``tests/test_full_disk.py``, run inside a private mount namespace on a 3 MiB tmpfs:
fill the store with ttl=1 spills until the disk is full, then recover through the CLI (sweep, delete-run,
delete-agent), checking each time that space was freed and that spills work again. With ``in-process`` after the
mount, the same recovery in the process that filled the disk, through the API (``scratch_delete``, ``delete_run``,
``delete_agent``, ``sweep`` on the open store). Prints one JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from scratchfs import ScratchStore, StorageError


def fill(store: ScratchStore, run: str, agent: str, ttl: float) -> int:
    """Spill incompressible 64 KiB results until the disk is full, then take the last free bytes with a filler file
    outside the store (another writer on the same disk); return how many spills fit."""
    scope = store.scope(run, agent)
    for n in range(1000):  # noqa: B007 - n is the count returned
        try:
            scope.spill(os.urandom(64 * 1024), source_tool="t", ttl=ttl)
        except StorageError as exc:
            if "full" not in str(exc):
                raise
            break
    else:
        raise AssertionError("the disk never filled")
    take_the_rest(os.path.join(os.path.dirname(store.root), f"filler-{run}"))
    assert free_bytes(str(store.root)) == 0
    return n


def cli(root: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "scratchfs", *args, "--root", root, "--json"],
                          capture_output=True, text=True, timeout=120)
    return {"code": done.returncode, "stderr": done.stderr.strip()[-500:]}


def free_bytes(path: str) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def main(mount: str, which: str = "cli") -> None:
    report: dict = {}
    run = {"in-process": in_process, "filled-while-closed": filled_while_closed}.get(which, scenario)
    try:
        run(os.path.join(mount, "store"), mount, report)
    except Exception as exc:
        report["error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(report))


def scenario(root: str, mount: str, report: dict) -> None:
    with ScratchStore(root) as store:
        report["filled_ttl1"] = fill(store, "r1", "a", ttl=1.0)
    time.sleep(1.2)
    report["free_before_sweep"] = free_bytes(mount)
    report["sweep"] = cli(root, "sweep")
    report["free_after_sweep"] = free_bytes(mount)
    with ScratchStore(root) as store:
        store.scope("r2", "a").spill(os.urandom(64 * 1024), source_tool="t")
        report["spill_after_sweep"] = True
        report["filled_for_delete_run"] = fill(store, "r2", "a", ttl=3600.0)
    report["delete_run"] = cli(root, "delete-run", "r2")
    report["free_after_delete_run"] = free_bytes(mount)
    with ScratchStore(root) as store:
        store.scope("r3", "b").spill(os.urandom(64 * 1024), source_tool="t")
        report["spill_after_delete_run"] = True
        report["filled_for_delete_agent"] = fill(store, "r3", "b", ttl=3600.0)
    report["delete_agent"] = cli(root, "delete-agent", "--run", "r3", "--agent", "b")
    report["free_after_delete_agent"] = free_bytes(mount)
    with ScratchStore(root) as store:
        handle = store.scope("r3", "b").spill(b"back again" * 1000, source_tool="t").handle
        report["read_after_delete_agent"] = store.scope("r3", "b").read_handle(handle, 0, 10).data.decode()
        report["integrity"] = store.integrity_check()
        report["entries_left"] = len(store.list_entries())



def fill_scope(store: ScratchStore, run: str, agent: str, ttl: float | None = None) -> list[str]:
    """The attacker's filling: 40 spills of 150,000 random bytes, then 5 scratchpad writes of 20,000 (their
    StorageErrors ignored), then the last free bytes taken by a filler file; return the keys that were written."""
    scope, keys = store.scope(run, agent), []
    for _ in range(40):
        try:
            scope.spill(os.urandom(150000), source_tool="t", ttl=ttl)
        except StorageError:
            pass
    for i in range(5):
        try:
            scope.scratch_write(f"k{i}", os.urandom(20000), ttl=ttl)
            keys.append(f"k{i}")
        except StorageError:
            pass
    take_the_rest(os.path.join(os.path.dirname(store.root), f"filler-{run}-{agent}"))
    assert free_bytes(str(store.root)) == 0
    return keys


def take_the_rest(path: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def attempt(call) -> object:
    try:
        return call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def in_process(root: str, mount: str, report: dict) -> None:
    """Fill the disk and recover in the same process, on the same open store (where the index's errors are
    ``StorageError``s from SQLite's ``SQLITE_FULL``, with no ``errno``)."""
    with ScratchStore(root) as store:
        report["keys_written"] = len(fill_scope(store, "r", "a"))
        report["delete_run"] = attempt(lambda: store.delete_run("r"))
        report["free_after_delete_run"] = free_bytes(mount)
        report["reserve_back"] = os.path.exists(os.path.join(root, "reserve"))
        keys = fill_scope(store, "r2", "b")
        report["scratch_delete"] = attempt(lambda: store.scope("r2", "b").scratch_delete(keys[0]))
        report["delete_agent"] = attempt(lambda: store.delete_agent("r2", "b"))
        report["free_after_delete_agent"] = free_bytes(mount)
        fill_scope(store, "r3", "c", ttl=1.0)
        time.sleep(1.2)
        report["sweep"] = attempt(lambda: store.sweep().rows_deleted)
        report["free_after_sweep"] = free_bytes(mount)
        handle = store.scope("r4", "d").spill(b"back again" * 1000, source_tool="t").handle
        report["read_after"] = store.scope("r4", "d").read_handle(handle, 0, 10).data.decode()
        report["integrity"] = store.integrity_check()


def filled_while_closed(root: str, mount: str, report: dict) -> None:
    """Spills, the store closed, then another writer takes the disk's last byte while no process has the index
    open: a new process's open cannot size the index's shared-memory file (SQLITE_IOERR_SHMSIZE), so each command
    failed as it opened, delete-run too, and the reserve was never released (newuser21)."""
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        for _ in range(12):
            scope.spill(os.urandom(150000), source_tool="t")
    take_the_rest(os.path.join(mount, "filler"))
    report["free_before"] = free_bytes(mount)
    report["shm_before"] = os.path.exists(os.path.join(root, "index.sqlite-shm"))
    report["delete_run"] = cli(root, "delete-run", "r")
    report["free_after_delete_run"] = free_bytes(mount)
    report["fsck"] = cli(root, "fsck")


if __name__ == "__main__":
    main(*sys.argv[1:3])
