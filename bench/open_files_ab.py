"""A random 4 KiB ``read_handle`` of a 64 MiB blob (T3's read) with the blob kept open
(:mod:`scratchfs.engine.open_files`) and with a cache that keeps nothing, alternating in one process on the same
offsets, p50 in µs per round (issue 16). In one process because T3 itself swings more from one process to the next
(decompression's speed with the memory layout) than this saves.

    python bench/open_files_ab.py [ROUNDS]     # default 6
"""

from __future__ import annotations

import random
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
from scratchfs.engine.open_files import OpenFiles


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    size = 64 * 1024 * 1024
    path = Path(tempfile.mkdtemp())
    try:
        with ScratchStore(path / "store") as store:
            scope = store.scope("bench", "open")
            handle = scope.spill(benchlib.repeated_chunks(benchlib.corpus(), size), source_tool="bench").handle
            blobs = store.blobs
            kept, none = blobs._open, OpenFiles(blobs.root_fd, 0)
            rng = random.Random(16)

            def p50(offsets: list[int]) -> float:
                samples = []
                for offset in offsets:
                    start = time.perf_counter_ns()
                    scope.read_handle(handle, offset=offset, length=4096)
                    samples.append(time.perf_counter_ns() - start)
                return statistics.median(samples) / 1e3

            for _ in range(rounds):
                offsets = [rng.randrange(0, size - 4096) for _ in range(1000)]
                blobs._open = kept
                a = p50(offsets)
                blobs._open = none
                b = p50(offsets)
                print(f"kept open {a:6.1f} µs   opened each time {b:6.1f} µs   ({a / b:.3f}×)")
    finally:
        shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    main()
