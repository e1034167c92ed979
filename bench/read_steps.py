"""Where one T3 read goes (issue 16): the steps of ``read_handle(h, offset, 4096)`` on a 64 MiB blob of the bench
corpus, done by hand and each timed where it runs, inside a loop of random offsets (p50 of each step, µs), then
``read_handle`` itself and the T3 anchor (``pyzstd.SeekableZstdFile`` open, ``seek`` + ``read(4096)``) alternating
in the same process.

    python bench/read_steps.py [READS]      # default 1000 random offsets, three rounds
"""

from __future__ import annotations

import os
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
import pyzstd
import zstandard

from scratchfs import ScratchStore
from scratchfs.api.results import Slice
from scratchfs.engine.seekable import SeekTableCache
from scratchfs.engine.zstd_contexts import decompressor

SIZE = 64 * 1024 * 1024
STEPS = ("index lookup", "open the blob", "seek table", "frame lookup", "pread", "frame header", "decompress",
         "slice", "close", "Slice")


def _steps(store: ScratchStore, scope, handle: str, offsets: list[int]) -> dict[str, float]:
    """p50 of each step of a range read done by hand (the store's own calls, in the order the read makes them)."""
    entries, blobs, tables, dctx = store.entries, store.blobs, SeekTableCache(), decompressor()
    run, agent, clock = scope.run_id, scope.agent_id, time.perf_counter_ns
    samples: dict[str, list[int]] = {name: [] for name in STEPS}
    for offset in offsets:
        t0 = clock()
        entry = entries.index.lookup_with_lines(run, agent, "handle", handle, time.time())[0]
        t1 = clock()
        source = blobs.open_source(run, agent, entry.blob)
        t2 = clock()
        table = tables.get(source, entry.blob)
        t3 = clock()
        index = table.frame_at(offset)
        start = table.c_offsets[index]
        t4 = clock()
        raw = source.pread(table.c_offsets[index + 1] - start, start)
        t5 = clock()
        zstandard.get_frame_parameters(raw)
        t6 = clock()
        frame = dctx.decompress(raw)
        t7 = clock()
        lo = offset - table.d_offsets[index]
        data = frame[lo : lo + 4096]
        del frame
        t8 = clock()
        source.close()
        t9 = clock()
        Slice(handle, offset, data, entry.size, offset + len(data), 4096, "handle", False)
        t10 = clock()
        stamps = (t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10)
        for name, a, b in zip(STEPS, stamps[:-1], stamps[1:], strict=True):
            samples[name].append(b - a)
    return {name: statistics.median(v) / 1e3 for name, v in samples.items()}


def _p50(read, offsets: list[int]) -> float:
    samples = []
    clock = time.perf_counter_ns
    for offset in offsets:
        start = clock()
        read(offset)
        samples.append(clock() - start)
    return statistics.median(samples) / 1e3


def main(reads: int) -> None:
    root = tempfile.mkdtemp(prefix="read-steps-")
    rng = random.Random(1)
    try:
        with ScratchStore(root) as store:
            scope = store.scope("bench", "steps")
            handle = scope.spill(benchlib.repeated_chunks(benchlib.corpus(), SIZE), source_tool="bench").handle
            entry = next(e for e in scope.list_entries() if e.key == handle)
            path = store.blobs.path(scope.run_id, scope.agent_id, entry.blob)
            anchor = pyzstd.SeekableZstdFile(str(path), "r")

            def pyzstd_read(offset: int) -> None:
                anchor.seek(offset)
                anchor.read(4096)

            def ours(offset: int) -> None:
                scope.read_handle(handle, offset=offset, length=4096)

            for round_ in range(3):
                offsets = [rng.randrange(0, SIZE - 4096) for _ in range(reads)]
                steps = _steps(store, scope, handle, offsets)
                print(f"round {round_ + 1}: " + "  ".join(f"{k} {v:.2f}" for k, v in steps.items())
                      + f"  | sum {sum(steps.values()):.1f}  read_handle {_p50(ours, offsets):.1f}"
                      f"  pyzstd {_p50(pyzstd_read, offsets):.1f} µs (load {os.getloadavg()[0]:.2f})")
            anchor.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
