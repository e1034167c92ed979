"""How fast this machine creates small files: the step a spill cannot avoid (one blob file per entry).

    python bench/file_creates.py [DIR ...]      # default: the system temp directory and bench/results' disk

For each directory, creates 1,000 files in a fresh subdirectory the way a spill does (``O_CREAT | O_EXCL``,
``flock``, one write of 4 KiB, close), median of 5 runs, and prints files per second. T1 in ``run.py`` compares
spills with ``diskcache.Cache.set``, which keeps small values inside SQLite and creates no file.

Beside it, the same 1,000 writes appended to one segment file per directory (``flock``, ``fstat`` for the end,
one ``pwrite``, unlock): what an append-only per-agent segment for small entries would pay instead of a create
(issue 16; not built).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def creates_per_second(directory: str, count: int = 1000, reps: int = 5) -> float:
    rates = []
    payload = b"x" * 4096
    for _ in range(reps):
        work = tempfile.mkdtemp(dir=directory, prefix="creates-")
        try:
            start = time.perf_counter()
            for i in range(count):
                fd = os.open(f"{work}/{i:06d}.zst", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
                os.write(fd, payload)
                os.close(fd)
            rates.append(count / (time.perf_counter() - start))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return statistics.median(rates)


def appends_per_second(directory: str, count: int = 1000, reps: int = 5) -> float:
    rates = []
    payload = b"x" * 4096
    for _ in range(reps):
        work = tempfile.mkdtemp(dir=directory, prefix="appends-")
        try:
            fd = os.open(f"{work}/segment", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            try:
                start = time.perf_counter()
                for _ in range(count):
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    os.pwrite(fd, payload, os.fstat(fd).st_size)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                rates.append(count / (time.perf_counter() - start))
            finally:
                os.close(fd)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return statistics.median(rates)


def main(argv: list[str]) -> int:
    directories = argv or [tempfile.gettempdir(), str(Path(__file__).resolve().parent / "results")]
    for directory in directories:
        rate = creates_per_second(directory)
        appends = appends_per_second(directory)
        print(f"{directory}: {rate:,.0f} files/s ({1e6 / rate:.0f} µs each); appended to one segment file: "
              f"{appends:,.0f} writes/s ({1e6 / appends:.0f} µs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
