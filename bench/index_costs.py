"""What each index of ``entries`` costs a write (issue 16): the raw statements of a spill's transaction (BEGIN
IMMEDIATE, the upsert, COMMIT) on an index holding PRESET rows, with all of the schema's indexes and with each one
dropped, interleaved, in WAL mode with synchronous=NORMAL as the store opens it.

    python bench/index_costs.py [PRESET_ROWS] [DIR]      # default 5000 rows, /dev/shm (else the temp directory)

Prints the median thread CPU per row of each variant (7 rounds of 1,000 rows, one transaction a row) and its
difference to all indexes; and, with all indexes, per row at 64 rows a transaction (a flush of rows written behind,
``engine/write_behind.py``: BATCH_ROWS) and 100.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine import sqlite_index
from scratchfs.engine.sqlite_schema import create_tables
from scratchfs.foundation.checks import new_handle, new_token

UPSERT = sqlite_index._UPSERT  # the one statement of a write, measured as the index runs it (a bench, not a module)

VARIANTS = {"all indexes": (), "without entries_born": ("entries_born",), "without entries_blob": ("entries_blob",),
            "without entries_expires_at": ("entries_expires_at",),
            "without entries_run_created": ("entries_run_created",)}
BATCHED = {"all indexes, 64 rows a transaction": 64, "all indexes, 100 rows a transaction": 100}


def _open(path: str, drop: tuple[str, ...], preset: int) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("BEGIN IMMEDIATE")
    create_tables(conn)
    for name in drop:
        conn.execute(f"DROP INDEX {name}")
    conn.execute("COMMIT")
    _insert(conn, [_row() for _ in range(preset)])
    return conn


def _row() -> tuple:
    now = time.time()
    return ("handle", "bench", "loop", new_handle(), f"{new_token()}:{new_token()}:4096:4500", 16384, 4500, 1, 300,
            "x" * 256, "bench.loop", "text", "text, 300 lines", now, now + 3600, 3600.0, b"\x2c\x01\x00\x00")


def _insert(conn: sqlite3.Connection, rows: list[tuple], per: int = 1) -> None:
    for at in range(0, len(rows), per):
        conn.execute("BEGIN IMMEDIATE")
        for row in rows[at : at + per]:
            conn.execute(UPSERT, row)
        conn.execute("COMMIT")


def main(argv: list[str]) -> int:
    preset = int(argv[0]) if argv else 5000
    where = argv[1] if len(argv) > 1 else ("/dev/shm" if os.path.isdir("/dev/shm") else None)
    directory = tempfile.mkdtemp(prefix="index-costs-", dir=where)
    try:
        variants = {name: (drop, 1) for name, drop in VARIANTS.items()} | {name: ((), per) for name, per in
                                                                             BATCHED.items()}
        conns = {name: _open(f"{directory}/{i}.db", drop, preset) for i, (name, (drop, _)) in
                 enumerate(variants.items())}
        times: dict[str, list[float]] = {name: [] for name in conns}
        for _ in range(7):
            for name, conn in conns.items():
                rows = [_row() for _ in range(1000)]
                start = time.thread_time()
                _insert(conn, rows, variants[name][1])
                times[name].append((time.thread_time() - start) / 1000 * 1e6)
        base = statistics.median(times["all indexes"])
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{name:38s} {median:6.1f} µs a row ({median - base:+.1f})")
        for conn in conns.values():
            conn.close()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
