#!/usr/bin/env python3
"""Frame size vs compression, write speed and read latency, on the real fixtures (issue 3: choose the default).

    python bench/frame_sizes.py            # about 30 s on 2 cores; prints a markdown table
    python bench/frame_sizes.py --quick    # tiny, seconds

For each frame size (32 KiB to 1 MiB) and for one whole-file frame (the store's largest frame setting, 4 MiB, which
holds each of these files in one frame), everything goes through the store's public API
(``ScratchStore(frame_bytes=...)``, ``spill``, ``read_handle``), median of 5 repetitions:

- **loss**: bytes on disk (frames + seek table) over those of one whole-file frame, minus 1, per real file: each
  fixture as it is (about 512 KiB; frames of 512 KiB and more hold it whole), and all four concatenated (2 MiB of
  mixed content, no repeats). Level 3 throughout.
- **write**: MB/s of content written as new blob files by the store's writer (``SeekableWriter``: frames, checksums,
  seek table, line counts; 1 MiB chunks in), each file 4 times per repetition (about 10 MiB in all). The store's
  per-entry costs (index row, shape detection, stub), the same for every frame size, are left out. Files are not
  repeated inside one blob: a repeat would let a frame as large as the repeat period (and the one-frame baseline)
  compress the copy almost for free.
- **read p50**: ``read_handle`` of a random 4 KiB range, over all five blobs, with the seek table cached.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import benchlib
from benchlib import KIB, MIB

from scratchfs import ScratchStore
from scratchfs.engine.seekable import DEFAULT_FRAME_BYTES, MAX_FRAME_BYTES, SeekableWriter

FRAME_SIZES = [32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, MIB, MAX_FRAME_BYTES]
WHOLE = MAX_FRAME_BYTES


def label(frame: int) -> str:
    if frame == WHOLE:
        return "whole file (one frame)"
    return f"{frame // MIB} MiB" if frame >= MIB else f"{frame // KIB} KiB"


def contents() -> dict[str, bytes]:
    files = {p.name: p.read_bytes() for p in benchlib.fixture_files()}
    return {**files, "all four (2 MiB)": benchlib.corpus()}


def _write_seconds(frame: int, data: dict[str, bytes], copies: int, directory: Path) -> float:
    """Seconds to write every content ``copies`` times as a new blob file with the store's writer (the frame size is
    the only setting that differs; the store's per-entry costs, the same for every frame size, are left out)."""
    seconds = 0.0
    for i in range(copies):
        for j, content in enumerate(data.values()):
            path = directory / f"w{i}-{j}.zst"
            start = time.perf_counter()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                writer = SeekableWriter(fd, frame, count_lines=True)
                for chunk in range(0, len(content), MIB):
                    writer.write(content[chunk : chunk + MIB])
                writer.close()
            finally:
                os.close(fd)
            seconds += time.perf_counter() - start
            os.unlink(path)
    return seconds


def measure(frame: int, data: dict[str, bytes], reps: int, copies: int, reads: int, work: Path, rng) -> dict:
    stored: dict[str, int] = {}
    write_rates: list[float] = []
    p50s: list[float] = []
    total = sum(len(d) for d in data.values()) * copies
    for rep in range(reps):
        path = work / f"{frame}-{rep}"
        with ScratchStore(path, frame_bytes=frame) as store:
            scope = store.scope("frames", "bench")
            handles = {name: scope.spill(content, source_tool="bench").handle for name, content in data.items()}
            write_rates.append(total / 1e6 / _write_seconds(frame, data, copies, path))
            if rep == 0:
                by_key = {e.key: e for e in scope.list_entries()}
                stored = {name: by_key[h].stored_size for name, h in handles.items()}
            samples = []
            for name, handle in handles.items():
                size = len(data[name])
                for _ in range(reads):
                    offset = rng.randrange(0, size - 4096)
                    t = time.perf_counter_ns()
                    got = scope.read_handle(handle, offset=offset, length=4096).data
                    samples.append(time.perf_counter_ns() - t)
                    if rep == 0:
                        assert got == data[name][offset : offset + 4096]
            p50s.append(statistics.median(samples) / 1e6)
        shutil.rmtree(path, ignore_errors=True)
    return {"stored": stored, "write_mb_s": statistics.median(write_rates), "read_p50_ms": statistics.median(p50s)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="frame size vs compression, write speed and read latency")
    parser.add_argument("--quick", action="store_true", help="tiny: a smoke test, not a measurement")
    args = parser.parse_args(argv)
    reps, copies, reads = (2, 1, 10) if args.quick else (5, 4, 60)
    data = contents()
    rng = random.Random(7)
    work = Path(tempfile.mkdtemp(prefix="scratchfs-frames-"))
    try:
        results = {frame: measure(frame, data, reps, copies, reads, work, rng) for frame in FRAME_SIZES}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    whole = results[WHOLE]["stored"]
    names = list(data)
    short = {n: "all four" if n.startswith("all four") else n.split("-")[0] for n in names}
    print("Compression loss against one whole-file frame (level 3; bytes on disk incl. the seek table), write speed "
          f"and 4 KiB read p50; median of {reps} repetitions. `python bench/frame_sizes.py`\n")
    print("| frame size | " + " | ".join(f"loss {short[n]}" for n in names)
          + " | mean loss (4 files) | ratio (4 files) | write MB/s | read 4 KiB p50 |")
    print("|---" * (len(names) + 5) + "|")
    size4 = sum(len(data[n]) for n in names[:4])
    for frame, r in results.items():
        losses = [r["stored"][n] / whole[n] - 1 for n in names]
        mean4 = statistics.mean(losses[:4])
        ratio4 = size4 / sum(r["stored"][n] for n in names[:4])
        mark = " (default)" if frame == DEFAULT_FRAME_BYTES else ""
        print(f"| {label(frame)}{mark} | " + " | ".join(f"{x * 100:+.1f}%" for x in losses)
              + f" | {mean4 * 100:+.1f}% | {ratio4:.2f} | {r['write_mb_s']:,.0f} | {r['read_p50_ms']:.3f} ms |")
    print(f"\nfiles: {', '.join(f'{short[n]} = {n} ({len(data[n]):,} B)' for n in names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
