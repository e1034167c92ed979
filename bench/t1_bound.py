"""How far T1 could go if shape detection cost nothing (issue 16): T1's spills of distinct 4, 16 and 64 KiB slices of
the bench corpus with shape detection on (as T1 runs them) and off (``detect_shape=False``: the stub still has its
preview and note but no shape or content type, so this is a bound, not an option), against T1's anchor,
``diskcache.Cache.set``, in one process, rounds alternating the three, in a fresh directory of the temp directory
each (the same file system as ``bench/run.py``'s). Prints the median wall time and calling-thread CPU per spill.

    python bench/t1_bound.py [ROUNDS]       # default 5
    python bench/t1_bound.py --parts        # shape detection and the stub alone on the same payloads (best of 3)

What it showed at 21:41 UTC on 2026-12-04 (3 rounds, load 3): with detection off a spill is at the anchor's speed
(1.03x at 4 KiB, 0.97x at 16 KiB, 1.84x at 64 KiB); with it on, 0.56x, 0.50x and 0.94x. The calling thread's CPU
per 4 KiB spill is 236 us on, 107 us off, 93 us for ``Cache.set``: shape detection and what it adds to the stub
are T1's whole gap at 4 and 16 KiB.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import diskcache

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.api.settings import Settings

SIZES = ((4096, 1000), (16384, 1000), (65536, 500))


def _ours(payloads: list[bytes], detect: bool) -> tuple[float, float]:
    directory = tempfile.mkdtemp(prefix="t1-bound-")
    try:
        with ScratchStore(directory, settings=Settings(detect_shape=detect)) as store:
            scope = store.scope("bench", "t1")
            start, cpu = time.perf_counter(), time.thread_time()
            for payload in payloads:
                scope.spill(payload, source_tool="bench.t1")
            store.flush()
            return time.perf_counter() - start, time.thread_time() - cpu
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _anchor(payloads: list[bytes]) -> tuple[float, float]:
    directory = tempfile.mkdtemp(prefix="t1-bound-")
    try:
        with diskcache.Cache(directory) as cache:
            start, cpu = time.perf_counter(), time.thread_time()
            for i, payload in enumerate(payloads):
                cache.set(f"k{i}", payload, expire=3600)
            return time.perf_counter() - start, time.thread_time() - cpu
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def parts() -> None:
    """Per payload size: ``describe`` (shape detection), ``build_stub`` with the shape and without one (what
    ``detect_shape=False`` builds), in microseconds a call, best of 3 loops over the payloads T1 spills.

    What it showed at 04:01 UTC on 2026-12-05 (load 1.9, a helper and a test run sharing the cores): describe 99,
    151 and 373 us at 4, 16 and 64 KiB; build_stub 45, 50 and 50 us, 29 to 33 us of it without a shape -- against
    112, 188 and 540 us of wall time for a whole ``Cache.set`` (the rounds' figures at 02:44, load 1.1)."""
    from scratchfs.api.shape import describe

    corpus = benchlib.corpus()
    for size, count in SIZES:
        payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]
        items = [(p, p.count(b"\n") + (not p.endswith(b"\n"))) for p in payloads]
        items = [(p, n, describe(p, len(p), n)) for p, n in items]
        for name in ("describe", "build_stub", "build_stub, no shape"):
            best = float("inf")
            for _ in range(3):
                start = time.thread_time()
                for payload, lines, found in items:
                    _part(name, payload, lines, found)
                best = min(best, time.thread_time() - start)
            print(f"{size // 1024:>3} KiB {name:<21} {best / count * 1e6:7.1f} us CPU a call")


def _part(name: str, payload: bytes, lines: int, found) -> None:
    from scratchfs.api.shape import describe
    from scratchfs.api.stub import build_stub

    if name == "describe":
        describe(payload, len(payload), lines)
        return
    if name == "build_stub":  # (as a spill calls it: the reads its shape's describer chose handed over)
        build_stub("h_" + "a" * 24, payload, payload[-8192:], len(payload), lines, found.content_type, found.text,
                   "bench.t1", 1024, next_read=found.next_read, top=found.top)
        return
    build_stub("h_" + "a" * 24, payload, payload[-8192:], len(payload), lines, None, None, "bench.t1", 1024)


def main() -> None:
    if sys.argv[1:] == ["--parts"]:
        parts()
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    corpus = benchlib.corpus()
    for size, count in SIZES:
        payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]
        runs: dict[str, list[tuple[float, float]]] = {"shape on": [], "shape off": [], "diskcache": []}
        for _ in range(rounds):
            runs["shape on"].append(_ours(payloads, True))
            runs["shape off"].append(_ours(payloads, False))
            runs["diskcache"].append(_anchor(payloads))
        anchor = statistics.median(w for w, _ in runs["diskcache"])
        for name, got in runs.items():
            wall = statistics.median(w for w, _ in got)
            cpu = statistics.median(c for _, c in got)
            print(f"{size // 1024:>3} KiB {name:<10} {wall / count * 1e6:7.1f} us wall, {cpu / count * 1e6:7.1f} us "
                  f"CPU a spill ({anchor / wall:.2f}x of diskcache)")


if __name__ == "__main__":
    main()
