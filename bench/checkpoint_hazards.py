"""The two hazards of checkpointing the write-ahead log off the writers' path (``scratchfs.engine.wal_checkpoints``),
each with the guard against it on and off:

    python bench/checkpoint_hazards.py fork [FORKS] [--unguarded]        # default 150 forks
    python bench/checkpoint_hazards.py threads [THREADS] [SECONDS] [--passive-settle]   # default 4 threads, 6 s
    python bench/checkpoint_hazards.py starved [ROWS] [--no-overdue]     # default 512 rows

- ``fork``: a thread writes scratchpad values with a background checkpoint every 4 rows (so one is nearly always
  under way) while the main thread forks every 5 ms; each child writes one value into a store of its own and exits.
  Printed: children that had not ended after 10 s (killed; a child forked while the checkpoint thread held one of
  SQLite's process-wide mutexes waits for it forever). ``--unguarded`` replaces the lock ``fork()`` takes
  (``wal_checkpoints._IN_SQLITE``) by one no fork hook knows, as before the guard.
- ``threads``: THREADS threads write 300-byte scratchpad values without a pause for SECONDS; printed: writes, and the
  largest size of the log file seen. ``--passive-settle`` makes the settling checkpoint ``PASSIVE`` instead of
  ``RESTART``, as before the fix (the log, copied whole, then never starts again while another thread writes).
- ``starved``: one thread writes ROWS 64-byte values without a pause into a store that checkpoints every 16 rows and
  settles every 64, its checkpoint thread 0.3 s late to start (one starved of CPU on a loaded machine); printed: the
  largest size of the log file. ``--no-overdue`` leaves the settling to a background checkpoint under way however
  many rows go by, as before the fix.

Stores are made under the system temp directory and removed.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.engine import wal_checkpoints


def forks(count: int, unguarded: bool) -> str:
    if unguarded:
        wal_checkpoints._IN_SQLITE = threading.Lock()  # the guard taken away, for the comparison
    root = tempfile.mkdtemp(prefix="hazard-")
    store = ScratchStore(root)
    store.index.checkpoints.rows = 4
    scope, stop = store.scope("r", "a"), threading.Event()

    def write() -> None:
        i = 0
        while not stop.is_set():
            scope.scratch_write(f"k{i % 50}", os.urandom(200))
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    hung = 0
    try:
        for _ in range(count):
            time.sleep(0.005)
            pid = os.fork()
            if pid == 0:
                child_root = tempfile.mkdtemp(prefix="hazard-child-")
                with ScratchStore(child_root) as child:
                    child.scope("c", "c").scratch_write("x", b"y" * 100)
                shutil.rmtree(child_root, ignore_errors=True)
                os._exit(0)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
            if time.monotonic() >= deadline:
                hung += 1
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    finally:
        stop.set()
        writer.join()
        store.close()
        shutil.rmtree(root, ignore_errors=True)
    return f"{hung} of {count} children hung ({'unguarded' if unguarded else 'guarded'})"


def threads(count: int, seconds: float, passive: bool) -> str:
    if passive:
        wal_checkpoints.Checkpoints._settle = lambda self, conn, running=None: self._checkpoint(conn)
    root = tempfile.mkdtemp(prefix="hazard-")
    wal = Path(root, "index.sqlite-wal")
    writes, largest, stop = [0] * count, [0], threading.Event()
    try:
        with ScratchStore(root) as store:
            def write(n: int) -> None:
                scope = store.scope("r", f"a{n}")
                while not stop.is_set():
                    scope.scratch_write(f"k{writes[n] % 100}", os.urandom(300))
                    writes[n] += 1

            workers = [threading.Thread(target=write, args=(n,)) for n in range(count)]
            for worker in workers:
                worker.start()
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                largest[0] = max(largest[0], wal.stat().st_size if wal.exists() else 0)
                time.sleep(0.01)
            stop.set()
            for worker in workers:
                worker.join()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    settle = "PASSIVE" if passive else "RESTART"
    return (f"{count} threads, {seconds:g} s, settling {settle}: {sum(writes):,} writes, log file at most "
            f"{largest[0] / 2**20:.1f} MiB")


def starved(rows: int, no_overdue: bool) -> str:
    if no_overdue:
        wal_checkpoints.Checkpoints._overdue = lambda self, running: not running and self._unsettled >= self.settle_rows
    root = tempfile.mkdtemp(prefix="hazard-")
    wal, largest = Path(root, "index.sqlite-wal"), 0
    try:
        with ScratchStore(root) as store:
            checkpoints = store.index.checkpoints
            checkpoints.rows, checkpoints.settle_rows = 16, 64
            connect = checkpoints._connect

            def late_connect():
                time.sleep(0.3)
                return connect()

            checkpoints._connect = late_connect
            scope = store.scope("r", "a")
            for i in range(rows):
                scope.scratch_write(f"k{i}", os.urandom(64))
                largest = max(largest, wal.stat().st_size)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    how = "left to the running checkpoint" if no_overdue else "overdue after twice settle_rows"
    return f"{rows} rows, a checkpoint thread 0.3 s late, settling {how}: log file at most {largest / 2**20:.1f} MiB"


def main(argv: list[str]) -> int:
    flags = {a for a in argv if a.startswith("--")}
    args = [a for a in argv if not a.startswith("--")]
    if args[:1] == ["fork"]:
        print(forks(int(args[1]) if len(args) > 1 else 150, "--unguarded" in flags))
    elif args[:1] == ["threads"]:
        print(threads(int(args[1]) if len(args) > 1 else 4, float(args[2]) if len(args) > 2 else 6.0,
                      "--passive-settle" in flags))
    elif args[:1] == ["starved"]:
        print(starved(int(args[1]) if len(args) > 1 else 512, "--no-overdue" in flags))
    else:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
