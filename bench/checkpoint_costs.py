"""What the write-ahead log's checkpoints cost a loop of small spills, by where they run (issue 16, T1):

    python bench/checkpoint_costs.py [SIZE_BYTES] [COUNT] [REPS] [DIR] [--pace MS]
    # default 4096 3000 5, the system temp directory, no pause between spills

- ``commit``: SQLite's automatic checkpoint (``wal_autocheckpoint = 1000`` pages) inside the ``COMMIT`` that crosses
  the mark, as scratchfs ran it before ``scratchfs.engine.wal_checkpoints``;
- ``background``: the default -- a background checkpoint every ``CHECKPOINT_ROWS`` rows, one in the committing
  connection every ``SETTLE_ROWS`` rows unless the background ones copied the whole log;
- ``settle8``: the same with one in the committing connection every 8 × ``CHECKPOINT_ROWS`` rows;
- ``none``: no checkpoint at all (the floor; the log grows without end).

Each version spills ``COUNT`` distinct payloads of ``SIZE_BYTES`` (the corpus repeated, as T1's) into a fresh
store, alternating the versions in every repetition, in one process; ``--pace MS`` sleeps MS milliseconds between two
spills (an agent's pace rather than a loop's; the pauses are not timed). Printed per version: the median of the
repetitions of wall µs and spilling-thread CPU µs per spill, of the 99th percentile and the slowest spill's wall time
(µs), and the log file's size at the end (the largest of the repetitions).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.engine import sqlite_connections, wal_checkpoints

NEVER = 1 << 62
VERSIONS = {  # name: (wal_autocheckpoint pages, background rows, settle rows)
    "commit": (1000, NEVER, NEVER),
    "background": (0, wal_checkpoints.CHECKPOINT_ROWS, wal_checkpoints.SETTLE_ROWS),
    "settle8": (0, wal_checkpoints.CHECKPOINT_ROWS, 8 * wal_checkpoints.CHECKPOINT_ROWS),
    "none": (0, NEVER, NEVER),
}


def main(argv: list[str]) -> int:
    pace = 0.0
    if "--pace" in argv:
        at = argv.index("--pace")
        pace = float(argv[at + 1]) / 1000
        argv = argv[:at] + argv[at + 2 :]
    size = int(argv[0]) if argv else 4096
    count = int(argv[1]) if len(argv) > 1 else 3000
    reps = int(argv[2]) if len(argv) > 2 else 5
    base = argv[3] if len(argv) > 3 else None
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count + 1)]
    connect = sqlite_connections.Connections.connect
    pages = {"now": 0}

    def connect_with(self, doing="opening the index"):
        conn = connect(self, doing)
        conn.execute(f"PRAGMA wal_autocheckpoint = {pages['now']}")
        return conn

    sqlite_connections.Connections.connect = connect_with
    results: dict[str, list[tuple[float, float, int, float, float]]] = {name: [] for name in VERSIONS}
    for _ in range(reps):
        for name, (autocheckpoint, rows, settle) in VERSIONS.items():
            pages["now"] = autocheckpoint
            directory = tempfile.mkdtemp(prefix="ckpt-", dir=base)
            try:
                with ScratchStore(directory) as store:
                    store.index.checkpoints.rows, store.index.checkpoints.settle_rows = rows, settle
                    scope = store.scope("bench", "ckpt")
                    scope.spill(payloads[0], source_tool="bench.ckpt")
                    each = []
                    cpu = time.thread_time()
                    for payload in payloads[1:]:
                        began = time.perf_counter()
                        scope.spill(payload, source_tool="bench.ckpt")
                        each.append(time.perf_counter() - began)
                        if pace:
                            time.sleep(pace)
                    wall, cpu = sum(each), time.thread_time() - cpu
                    wal = Path(directory, "index.sqlite-wal").stat().st_size
                each.sort()
                results[name].append((wall / count * 1e6, cpu / count * 1e6, wal, each[int(0.99 * len(each))] * 1e6,
                                      each[-1] * 1e6))
            finally:
                shutil.rmtree(directory, ignore_errors=True)
    paced = f", {pace * 1000:g} ms between spills" if pace else ""
    print(f"{count:,} spills of {size:,} bytes{paced}, median of {reps} (versions alternating); "
          f"load average {os.getloadavg()[0]:.2f}")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        log = max(r[2] for r in runs) / 2**20
        p99, worst = statistics.median(r[3] for r in runs), statistics.median(r[4] for r in runs)
        print(f"  {name:<11} {wall:6.1f} µs wall  {cpu:6.1f} µs CPU  p99 {p99:6.0f} µs  max {worst:7.0f} µs  "
              f"log file at most {log:5.1f} MiB  (wall per rep: {', '.join(f'{r[0]:.0f}' for r in runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
