"""How far T2 could go with its frames compressed in one call that holds no GIL while the calling thread counts the
newlines and detects the shape (issue 16, the idea left after `describe_overlap.py`): T2's 8 payloads of 4 MiB, five
ways alternating in one process, the wall time per payload and the anchor's time over it.

    python bench/t2_overlap.py [REPS]      # default 9

- ``A``: T2's anchor, one-shot ``zstandard`` level 3;
- ``B``: the payload's 128 KiB frames by one ``multi_compress_to_buffer(threads=2)`` call (zstd's own threads, no
  GIL held until all are done), then each frame's newlines counted and ``describe`` of the 512 KiB sample, in turn;
- ``C``: the same call on a thread of its own while the calling thread counts and describes, then joined: the
  overlap, with no worker waiting on the GIL for each frame (what defeated `describe_overlap.py`'s);
- ``D``: the counts and ``describe`` alone;
- ``E``: T2 itself, ``Scope.spill`` of the payloads into a store in ``/dev/shm`` (else the temp directory).

What it printed at 03:18 UTC on 2026-12-07, no helper running, load 0.9: A 7.30 ms, B 13.68 ms (0.53x), C 11.74 ms
(0.62x), D 4.40 ms, E 13.74 ms (0.53x). The frames alone by the one call cost about B - D = 9.3 ms on two threads
(one frame of 4 MiB: 7.3): the overlap would buy about 2 ms a payload, 0.53x to 0.62x, short of T2's 0.8x even if
the write and the index cost nothing. Not built (the spill's writer would take a describe hook between its frames and
their writes).
"""

from __future__ import annotations

import os
import shutil
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

from scratchfs import ScratchStore
from scratchfs.api.shape import SAMPLE_BYTES, describe

MIB = 1 << 20
FRAME = 128 * 1024


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 9
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * MIB, start=i * 1_000_003) for i in range(8)]
    anchor = zstandard.ZstdCompressor(level=3)
    frames_cctx = zstandard.ZstdCompressor(level=3, write_checksum=True, write_content_size=True)

    def frames(p: bytes) -> list[memoryview]:
        view = memoryview(p)
        return [view[i : i + FRAME] for i in range(0, len(p), FRAME)]

    def count_and_describe(p: bytes) -> None:
        counts = [p.count(b"\n", i, i + FRAME) for i in range(0, len(p), FRAME)]
        describe(p[:SAMPLE_BYTES], len(p), sum(counts))

    def way_a() -> None:
        for p in payloads:
            anchor.compress(p)

    def way_b() -> None:
        for p in payloads:
            frames_cctx.multi_compress_to_buffer(frames(p), threads=2)
            count_and_describe(p)

    def way_c() -> None:
        for p in payloads:
            batch = frames(p)
            worker = threading.Thread(target=frames_cctx.multi_compress_to_buffer, args=(batch,),
                                      kwargs={"threads": 2})
            worker.start()
            count_and_describe(p)
            worker.join()

    def way_d() -> None:
        for p in payloads:
            count_and_describe(p)

    root = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    store = ScratchStore(root)
    scope = store.scope("bench", "t2")
    scope.spill(payloads[-1][: 256 * 1024], source_tool="bench.t2")

    def way_e() -> None:
        for p in payloads:
            scope.spill(p, source_tool="bench.t2")

    ways = {"A": way_a, "B": way_b, "C": way_c, "D": way_d, "E": way_e}
    times: dict[str, list[float]] = {name: [] for name in ways}
    try:
        for rep in range(reps):
            for name in list(ways) if rep % 2 == 0 else list(reversed(ways)):
                started = time.perf_counter()
                ways[name]()
                times[name].append((time.perf_counter() - started) / len(payloads) * 1000)
    finally:
        store.close()
        shutil.rmtree(root, ignore_errors=True)
    anchor_ms = statistics.median(times["A"])
    print(f"load {os.getloadavg()[0]:.2f}")
    for name, got in times.items():
        ms = statistics.median(got)
        print(f"{name} {ms:6.2f} ms a payload, anchor/this {anchor_ms / ms:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
