"""zstd's match tables sized to the frame (``zstd_contexts.frame_parameters``) against zstd's own for the level: bytes
written on each fixture (as T6 counts them: the frames' sum against one zstd frame of the whole file at level 3),
compression and decompression speed of 128 KiB frames of the corpus, and a 4 KiB small content's compression (T1).

    python bench/frame_tables.py [REPS]     # default 9; the two ways alternate, medians printed
    python bench/frame_tables.py --spills [REPS]   # T2's loop: 8 spills of 4 MiB into a fresh store, 10 reps

Issue 16, T2: a 4 MiB spill is bound by its frames' compression on 2 cores; zstd clears its hash and chain tables
for every frame, and sizes them for a whole input of the frame's size (2^17 and 2^16 entries at level 3 for
128 KiB).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.engine import seekable
from scratchfs.engine.seekable import DEFAULT_FRAME_BYTES
from scratchfs.engine.zstd_contexts import frame_parameters
from scratchfs.foundation.limits import SMALL_CONTENT_LEVEL, ZSTD_LEVEL


def _ways(level: int, frame: int) -> dict[str, zstandard.ZstdCompressor]:
    return {"zstd's tables": zstandard.ZstdCompressor(level=level, write_checksum=True, write_content_size=True),
            "frame-sized": zstandard.ZstdCompressor(compression_params=frame_parameters(level, frame))}


def _frames(data: bytes, frame: int) -> list[memoryview]:
    view = memoryview(data)
    return [view[i : i + frame] for i in range(0, len(data), frame)]


def _timed(reps: int, calls: dict) -> dict[str, float]:
    """Median seconds of each call, the calls alternating."""
    seconds: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(reps):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in seconds.items()}


def spills(reps: int) -> None:
    """T2's loop (8 distinct 4 MiB payloads spilled into a fresh store), the two ways alternating; MB/s medians."""
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * 1024 * 1024, start=i * 1_000_003) for i in range(8)]
    framed, local = seekable.compressor, threading.local()

    def zstds(level: int, frame_bytes: int) -> zstandard.ZstdCompressor:  # zstd's own tables, one per thread
        if getattr(local, "cctx", None) is None:
            local.cctx = zstandard.ZstdCompressor(level=level, write_checksum=True, write_content_size=True)
        return local.cctx

    rates: dict[str, list[float]] = {"zstd's tables": [], "frame-sized": []}
    for _ in range(reps):
        for name, values in rates.items():
            seekable.compressor = zstds if name == "zstd's tables" else framed
            root = tempfile.mkdtemp(prefix="frame-tables-")
            try:
                with ScratchStore(root) as store:
                    scope = store.scope("bench", "t2")
                    scope.spill(payloads[1], source_tool="bench")  # the store and its directories made
                    start = time.perf_counter()
                    for payload in payloads:
                        scope.spill(payload, source_tool="bench")
                    values.append(len(payloads) * 4 * 1024 * 1024 / 1e6 / (time.perf_counter() - start))
            finally:
                shutil.rmtree(root, ignore_errors=True)
    seekable.compressor = framed
    print("8 spills of 4 MiB, MB/s: " + ", ".join(f"{name} {statistics.median(v):,.0f}" for name, v in rates.items()))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--spills"]:
        spills(int(argv[1]) if len(argv) > 1 else 10)
        return 0
    reps = int(argv[0]) if argv else 9
    frame = DEFAULT_FRAME_BYTES
    ways = _ways(ZSTD_LEVEL, frame)
    print(f"level {ZSTD_LEVEL}, frames of {frame:,} bytes; bytes written against one frame of the whole file:")
    for path in benchlib.fixture_files():
        data = path.read_bytes()
        one = len(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data))
        ratios = {name: sum(len(c.compress(f)) for f in _frames(data, frame)) / one for name, c in ways.items()}
        print(f"  {path.name:40s} " + "  ".join(f"{name} {r:.3f}×" for name, r in ratios.items()))
    corpus = benchlib.corpus()
    frames = _frames(corpus, frame)
    took = _timed(reps, {name: (lambda c=c: [c.compress(f) for f in frames]) for name, c in ways.items()})
    outs = {name: [c.compress(f) for f in frames] for name, c in ways.items()}
    dctx = zstandard.ZstdDecompressor()
    back = _timed(reps, {name: (lambda o=o: [dctx.decompress(f) for f in o]) for name, o in outs.items()})
    mb = len(corpus) / 1e6
    for name in ways:
        print(f"  corpus, {name}: compress {mb / took[name]:,.0f} MB/s, decompress {mb / back[name]:,.0f} MB/s")
    print(f"  frame-sized: {took[next(iter(ways))] / took['frame-sized']:.2f}× the compression speed")
    small = [benchlib.repeated(corpus, 4096, start=i * 4103) for i in range(500)]
    ways = _ways(SMALL_CONTENT_LEVEL, frame)
    took = _timed(reps, {name: (lambda c=c: [c.compress(s) for s in small]) for name, c in ways.items()})
    print(f"4 KiB small contents at level {SMALL_CONTENT_LEVEL}: " +
          ", ".join(f"{name} {took[name] / len(small) * 1e6:.1f} µs" for name in ways))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
