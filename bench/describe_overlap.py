"""Can a large spill's shape detection hide behind its frames? An upper bound, measured (issue 16, T2).

    python bench/describe_overlap.py [REPS]     # default 11 repetitions; the blob goes to /dev/shm (else the temp dir)

T2's payloads (8 of 4 MiB, the corpus repeated) are written by ``SeekableWriter`` alone with shape detection of
their 512 KiB sample three ways, alternating them (and one-shot ``zstandard`` level 3, T2's anchor) in every
repetition; ``describe`` is given the true line count up front, which a spill knows only once the last frame is
counted, so the overlapped rows are the best overlap could do:

- ``seq``: the writer, then ``describe`` (what a spill does);
- ``thread``: ``describe`` in a thread started once the first 512 KiB are queued, joined after ``close``;
- ``inline``: ``describe`` in the writing thread once the first 512 KiB are queued, while the workers compress.

Printed: the median wall time per payload and the anchor's time over it, with the load average.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib
import zstandard

from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.engine.seekable import SeekableWriter

MIB = 1024 * 1024


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 11
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * MIB, start=i * 1_000_003) for i in range(8)]
    lines = [p.count(b"\n") + (p[-1:] != b"\n") for p in payloads]
    directory = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    path = f"{directory}/describe-overlap-{os.getpid()}.zst"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    anchor_cctx = zstandard.ZstdCompressor(level=3)

    def write(p: bytes, after_sample=None) -> None:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        writer = SeekableWriter(fd, count_lines=True)
        writer.write(p[:SAMPLE_BYTES])
        if after_sample is not None:
            after_sample()
        writer.write(memoryview(p)[SAMPLE_BYTES:])
        writer.close(lambda w: w.digest().encode())

    def seq() -> None:
        for p, n in zip(payloads, lines, strict=True):
            write(p)
            describe(p[:SAMPLE_BYTES], len(p), n)

    def thread() -> None:
        for p, n in zip(payloads, lines, strict=True):
            worker = threading.Thread(target=describe, args=(p[:SAMPLE_BYTES], len(p), n))
            write(p, worker.start)
            worker.join()

    def inline() -> None:
        for p, n in zip(payloads, lines, strict=True):
            write(p, lambda p=p, n=n: describe(p[:SAMPLE_BYTES], len(p), n))

    parts = {"anchor": lambda: [anchor_cctx.compress(p) for p in payloads], "seq": seq, "thread": thread,
             "inline": inline}
    wall: dict[str, list[float]] = {name: [] for name in parts}
    load = os.getloadavg()[0]
    try:
        for rep in range(reps):
            for name, part in list(parts.items())[:: 1 if rep % 2 else -1]:
                start = time.perf_counter()
                part()
                wall[name].append((time.perf_counter() - start) * 1e3 / len(payloads))
    finally:
        os.close(fd)
        os.unlink(path)
    anchor = statistics.median(wall["anchor"])
    print(f"per 4 MiB payload, median of {reps}; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for name in parts:
        median = statistics.median(wall[name])
        print(f"{name:7s} wall {median:6.2f} ms  anchor/wall {anchor / median:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
