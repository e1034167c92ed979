"""Where a large spill's time goes, part by part, in wall time and in CPU time: the model behind T2 (issue 16).

    python bench/large_spill_parts.py [REPS] [DIR]     # default 9 repetitions, stores in the system temp directory

T2's payloads (8 of 4 MiB, the corpus repeated) go through each part alone, alternating the parts in every
repetition; the median per 4 MiB payload is printed, in milliseconds of wall time and of this process's CPU time
(all threads), with the load average:

- ``anchor``: one-shot ``zstandard`` level 3 of the payload (T2's anchor);
- ``frames``: the payload's 128 KiB frames compressed one after another in one thread (what the blob's frames cost
  in CPU, whatever the threads);
- ``newlines``: ``bytes.count(b"\\n")`` over the payload (the writer's line count; it holds the GIL);
- ``writer``: ``SeekableWriter`` alone into a file in ``/dev/shm`` (frames on the worker threads, newlines,
  writes, binding frame and seek table);
- ``describe``: shape detection of the 512 KiB sample (the stub's; it holds the GIL), given the line count (the
  writer's, counted before the timing: ``newlines`` is that count's cost);
- ``spill``: ``scope.spill`` of the payload into a store (all of it: file, writer, shape, stub, index).

It then prints the stored bytes of the first payload as the anchor's one frame and as 128 KiB frames: the payload
is the 2 MiB corpus twice, and only a frame holding both copies finds the second (so the anchor compresses it in
less CPU than the frames do).

When the CPU time of ``spill`` is well over its wall time, the threads ran at once; when they are about equal (a
loaded machine), the ratio to the anchor is the ratio of their CPU times.
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
import zstandard

from scratchfs import ScratchStore
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.engine.seekable import DEFAULT_FRAME_BYTES, SeekableWriter
from scratchfs.engine.zstd_contexts import compressor

MIB = 1024 * 1024


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 9
    directory = tempfile.mkdtemp(prefix="spill-parts-", dir=argv[1] if len(argv) > 1 else None)
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * MIB, start=i * 1_000_003) for i in range(8)]
    lines = [p.count(b"\n") + (p[-1:] != b"\n") for p in payloads]  # what the writer hands describe
    anchor_cctx = zstandard.ZstdCompressor(level=3)
    blob = "/dev/shm" if os.path.isdir("/dev/shm") else directory
    fd = os.open(f"{blob}/spill-parts-{os.getpid()}.zst", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def frames(p: bytes) -> None:
        view = memoryview(p)
        for start in range(0, len(p), DEFAULT_FRAME_BYTES):
            compressor(3, DEFAULT_FRAME_BYTES).compress(view[start : start + DEFAULT_FRAME_BYTES])

    def writer(p: bytes) -> None:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        w = SeekableWriter(fd, count_lines=True)
        w.write(p)
        w.close(lambda w: w.digest().encode())

    def spill_all() -> None:
        with ScratchStore(f"{directory}/store-{time.perf_counter_ns()}") as store:
            scope = store.scope("bench", "parts")
            for p in payloads:
                scope.spill(p, source_tool="bench.parts")

    parts = {
        "anchor": lambda: [anchor_cctx.compress(p) for p in payloads],
        "frames": lambda: [frames(p) for p in payloads],
        "newlines": lambda: [p.count(b"\n") for p in payloads],
        "writer": lambda: [writer(p) for p in payloads],
        "describe": lambda: [describe(p[:SAMPLE_BYTES], len(p), n) for p, n in zip(payloads, lines, strict=True)],
        "spill": spill_all,
    }
    wall: dict[str, list[float]] = {name: [] for name in parts}
    cpu: dict[str, list[float]] = {name: [] for name in parts}
    load = os.getloadavg()[0]
    try:
        for rep in range(reps):
            for name, part in list(parts.items())[:: 1 if rep % 2 else -1]:
                start, start_cpu = time.perf_counter(), time.process_time()
                part()
                wall[name].append((time.perf_counter() - start) * 1e3 / len(payloads))
                cpu[name].append((time.process_time() - start_cpu) * 1e3 / len(payloads))
    finally:
        os.close(fd)
        os.unlink(f"{blob}/spill-parts-{os.getpid()}.zst")
        shutil.rmtree(directory, ignore_errors=True)
    anchor = statistics.median(wall["anchor"])
    print(f"per 4 MiB payload, median of {reps}; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    view = memoryview(payloads[0])  # what the anchor's one frame finds that 128 KiB frames cannot: the repeat
    framed = sum(len(compressor(3, DEFAULT_FRAME_BYTES).compress(view[s : s + DEFAULT_FRAME_BYTES]))
                 for s in range(0, len(view), DEFAULT_FRAME_BYTES))
    print(f"stored bytes of payload 1: anchor {len(anchor_cctx.compress(payloads[0])):,}, frames {framed:,}")
    for name in parts:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"{name:9s} wall {w:6.2f} ms  cpu {c:6.2f} ms  anchor/wall {anchor / w:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
