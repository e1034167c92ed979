"""Where a spill's time goes, part by part (issue 16's T1, T2 and T8 figures of the fifth session of 2026-12-06).

    python bench/spill_parts.py profile [SIZE]  # cProfile a spill of SIZE-byte slices (4096), shape on vs off
    python bench/spill_parts.py compress        # level 3 of 4/16/64 KiB: tables sized to the entry or the frame
    python bench/spill_parts.py large           # 4 MiB spills, wall and calling-thread CPU, vs one-shot zstd
    python bench/spill_parts.py listing [ROOT]  # list_entries_for_run of 10,000 entries (ROOT: another checkout)

What they showed on 2026-12-06 (2 cores): ``profile 4096`` (11:15, quiet): per spill, zstd compress 46 us,
``pwritev`` 20 us, two ``getrandom`` 8 us each, an ``lstat`` 12 us (cProfile, so inflated); ``compress`` at 13:33
(quiet): a 4 KiB slice 18.0 us with tables sized to it against 17.1 us sized to the 128 KiB frame, for 1.4% more
bytes -- no gain (an 11:20 run at a load of 3 had read 19.6 against 25.4 us); ``large`` at 13:33 (quiet): 14.5 ms a
spill with shape detection on (0.53x of one-shot level 3, 7.6 ms), 9.8 ms with it off (0.78x), calling-thread CPU
5.2 and 2.1 ms; ``listing``: 37-75 ms a call, alike for this session's start (``016ef6c``) and its end.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 and sys.argv[1] == "listing" else HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import benchlib  # noqa: E402
import zstandard  # noqa: E402

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.api.settings import Settings  # noqa: E402

MIB = 1 << 20


def _slices(size: int, count: int) -> list[bytes]:
    corpus = benchlib.corpus()
    return [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]


def profile(size: int) -> None:
    payloads = _slices(size, 1000)
    per = {}
    for detect in (True, False):
        with ScratchStore(tempfile.mkdtemp(), settings=Settings(detect_shape=detect)) as store:
            scope = store.scope("bench", "t1")
            for p in payloads[:50]:
                scope.spill(p, source_tool="bench.t1")
            prof = cProfile.Profile()
            prof.enable()
            for p in payloads[50:]:
                scope.spill(p, source_tool="bench.t1")
            store.flush()
            prof.disable()
        stats = pstats.Stats(prof).stats.items()
        per[detect] = {f"{k[0].rsplit('/', 1)[-1]}:{k[2]}": v[3] * 1e6 / 950 for k, v in stats}
    names = sorted(set(per[True]) | set(per[False]), key=lambda k: -per[True].get(k, 0.0))
    print(f"{'shape on':>10} {'off':>10}  us a spill (cumulative, cProfile)")
    for name in names[:40]:
        print(f"{per[True].get(name, 0.0):10.1f} {per[False].get(name, 0.0):10.1f}  {name}")


def compress() -> None:
    from scratchfs.engine.zstd_contexts import compressor

    for size in (4096, 16384, 65536):
        payloads = _slices(size, 300)
        for tables in (size, 128 * 1024):
            cctx, best = compressor(3, tables), float("inf")
            for _ in range(5):
                start = time.perf_counter()
                for p in payloads:
                    cctx.compress(p)
                best = min(best, (time.perf_counter() - start) / len(payloads))
            stored = sum(len(cctx.compress(p)) for p in payloads)
            print(f"{size:>6} B slices, tables for {tables:>6} B: {best * 1e6:7.1f} us, {stored:,} bytes stored")


def large() -> None:
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, 4 * MIB, start=i * 1_000_003) for i in range(8)]
    cctx = zstandard.ZstdCompressor(level=3)
    start = time.perf_counter()
    for p in payloads:
        cctx.compress(p)
    anchor = (time.perf_counter() - start) / len(payloads)
    for detect in (True, False):
        with ScratchStore(tempfile.mkdtemp(), settings=Settings(detect_shape=detect)) as store:
            scope = store.scope("bench", "t2")
            scope.spill(payloads[0])
            start, cpu = time.perf_counter(), time.thread_time()
            for p in payloads:
                scope.spill(p, source_tool="bench.t2")
            wall, cpu = (time.perf_counter() - start) / 8, (time.thread_time() - cpu) / 8
        print(f"shape {'on ' if detect else 'off'}: {wall * 1e3:.1f} ms a 4 MiB spill (calling thread {cpu * 1e3:.1f} "
              f"ms of CPU), one-shot level 3 {anchor * 1e3:.1f} ms: {anchor / wall:.2f}x")


def listing() -> None:
    from run import _populate

    corpus = benchlib.corpus()
    with ScratchStore(tempfile.mkdtemp()) as store:
        scopes = [store.scope("bench", f"agent-{k}") for k in range(10)]
        _populate(lambda i: scopes[i % 10], 10_000, corpus)
        store.flush()
        times = []
        for _ in range(7):
            start = time.perf_counter()
            store.list_entries_for_run("bench")
            times.append((time.perf_counter() - start) * 1e3)
    print(f"{ROOT}: list_entries_for_run of 10,000 entries: " + ", ".join(f"{t:.1f}" for t in sorted(times)) + " ms")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "profile"
    if mode == "profile":
        profile(int(sys.argv[2]) if len(sys.argv) > 2 else 4096)
    else:
        {"compress": compress, "large": large, "listing": listing}[mode]()
