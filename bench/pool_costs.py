"""What handing work to threads costs a spill (issue 16): the figures behind ``scratchfs/engine/frame_pool.py``.

    python bench/pool_costs.py [REPS]      # default 7 rounds

1. **Large contents.** T2's payloads (8 of 4 MiB, the corpus repeated) cut into 128 KiB frames and compressed at
   level 3 on 2 threads, three ways, alternating in every round: new threads for each payload
   (``ThreadPoolExecutor`` made and shut down per payload, what ``SeekableWriter`` did before the shared pool), the
   shared :data:`~scratchfs.engine.frame_pool.frame_pool`, and the one-shot anchor (T2's). Wall and process CPU time
   per payload, medians.
2. **Small contents.** Would a small spill gain by compressing its content on a worker while the calling thread
   detects its shape? For 16, 32 and 64 KiB corpus slices: level 1 compression then ``describe`` in one thread,
   against compression handed to the shared pool with ``describe`` run meanwhile, and the bare hand-off of a call
   that does nothing (``len``) to an idle worker and back. Medians over 300 slices.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib
import zstandard

from scratchfs.api.shape import describe
from scratchfs.engine.frame_pool import frame_pool
from scratchfs.engine.zstd_contexts import compressor

MIB = 1024 * 1024
FRAME = 128 * 1024


def _frame(data: bytes, start: int) -> bytes:
    return compressor(3, FRAME).compress(memoryview(data)[start : start + FRAME])


def large(reps: int) -> None:
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * MIB, start=i * 1_000_003) for i in range(8)]
    anchor = zstandard.ZstdCompressor(level=3)

    def fresh(p: bytes) -> None:
        with ThreadPoolExecutor(2) as pool:
            [f.result() for f in [pool.submit(_frame, p, s) for s in range(0, len(p), FRAME)]]

    def shared(p: bytes) -> None:
        [f.result() for f in [frame_pool.submit(_frame, p, s) for s in range(0, len(p), FRAME)]]

    ways = {"new threads per write": fresh, "shared pool": shared, "anchor (one-shot level 3)": anchor.compress}
    times: dict[str, tuple[list, list]] = {name: ([], []) for name in ways}
    for _ in range(reps):
        for name, way in ways.items():
            for p in payloads:
                wall, cpu = time.perf_counter(), time.process_time()
                way(p)
                times[name][0].append(time.perf_counter() - wall)
                times[name][1].append(time.process_time() - cpu)
    print("4 MiB payload in 128 KiB frames on 2 threads, per payload (median):")
    for name, (wall, cpu) in times.items():
        print(f"  {name:28s} wall {statistics.median(wall) * 1e3:6.2f} ms   cpu {statistics.median(cpu) * 1e3:6.2f} ms")


def small() -> None:
    corpus = benchlib.corpus()
    print("small content: compress (level 1) + describe, per content (median of 300):")
    for size in (16 * 1024, 32 * 1024, 64 * 1024):
        slices = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(300)]
        one, overlapped, handoff = [], [], []
        for p in slices:
            start = time.perf_counter()
            compressor(1).compress(p)
            describe(p, len(p), p.count(b"\n"))
            one.append(time.perf_counter() - start)
            start = time.perf_counter()
            future = frame_pool.submit(compressor(1).compress, p)
            describe(p, len(p), p.count(b"\n"))
            future.result()
            overlapped.append(time.perf_counter() - start)
            time.sleep(0.0005)  # the worker goes back to waiting, as between two spills
            start = time.perf_counter()
            frame_pool.submit(len, p).result()
            handoff.append(time.perf_counter() - start)
        one_us, worker_us, handoff_us = (statistics.median(v) * 1e6 for v in (one, overlapped, handoff))
        print(f"  {size // 1024:3d} KiB: one thread {one_us:5.0f} µs, compression on a worker {worker_us:5.0f} µs, "
              f"bare hand-off {handoff_us:4.0f} µs")


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 7
    before = os.getloadavg()[0]
    large(reps)
    small()
    print(f"load average {before:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
