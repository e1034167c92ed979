"""How far T2 could go if shape detection cost nothing (issue 16): T2's spill of 4 MiB payloads with shape detection on
(as T2 runs it) and off (``detect_shape=False``: the stub then carries no shape, so this is a bound, not an option),
against T2's anchor, one-shot zstd level 3, in one process, alternating which goes first. Also the wall time of each
step of a spill with detection on: the blob write (frames compressed on the worker threads), shape detection after
it, the index. Overlapping shape detection with the frames' compression (it runs after the blob write today) could
at best reach the "off" figure.

    python bench/t2_bound.py [REPS] [PAYLOADS]      # defaults 7 and 8, as T2's full run
    python bench/t2_bound.py --parts                # per payload: blob write with detection on and off, shape
                                                    # detection and build_stub alone on its sample (best of 7)
"""

from __future__ import annotations

import functools
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.api import entries
from scratchfs.engine import local_blobs, sqlite_index

SIZE = 4 * 1024 * 1024
STEPS = {"blob write": (local_blobs.Blobs, "write"), "shape detection": (entries, "describe_content"),
         "index put": (sqlite_index.Index, "put")}
wall: dict[str, float] = dict.fromkeys(STEPS, 0.0)


def timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            wall[name] += time.perf_counter() - start
    return wrapper


def spills(payloads: list[bytes], detect_shape: bool) -> float:
    """Seconds per spill of ``payloads`` into a fresh store (one spill before, to open it)."""
    root = tempfile.mkdtemp(prefix="t2bound-")
    try:
        with ScratchStore(root, detect_shape=detect_shape) as store:
            scope = store.scope("bench", "t2")
            scope.spill(payloads[-1][: 256 * 1024], source_tool="bench.t2")
            start = time.perf_counter()
            for p in payloads:
                scope.spill(p, source_tool="bench.t2")
            return (time.perf_counter() - start) / len(payloads)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def anchor(payloads: list[bytes]) -> float:
    cctx = zstandard.ZstdCompressor(level=3)
    start = time.perf_counter()
    for p in payloads:
        cctx.compress(p)
    return (time.perf_counter() - start) / len(payloads)


def parts(payloads: list[bytes]) -> None:
    """Per payload: the blob write's wall time with shape detection on and off (median of 5 rounds), and shape
    detection and ``build_stub`` alone on its sample (best of 7)."""
    from scratchfs.api.shape import SAMPLE_BYTES, describe
    from scratchfs.api.stub import build_stub

    writes: dict[bool, list[list[float]]] = {True: [[] for _ in payloads], False: [[] for _ in payloads]}
    for detect in (True, False):
        root = tempfile.mkdtemp(prefix="t2parts-")
        try:
            with ScratchStore(root, detect_shape=detect) as store:
                scope = store.scope("bench", "t2")
                for _ in range(5):
                    for i, p in enumerate(payloads):
                        before = wall["blob write"]
                        scope.spill(p, source_tool="bench.t2")
                        writes[detect][i].append(wall["blob write"] - before)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    for i, p in enumerate(payloads):
        head, lines = p[:SAMPLE_BYTES], p.count(b"\n")
        shape = min(_timed(lambda: describe(head, len(p), lines)) for _ in range(7))  # noqa: B023
        stub = min(_timed(lambda: build_stub("h_" + "q" * 24, head, b"", len(p), lines, "text", "text",  # noqa: B023
                                             "bench.t2", 1024, "head")) for _ in range(7))
        print(f"payload {i} (starts {p[:12]!r}): blob write {statistics.median(writes[True][i]) * 1e3:.1f} ms "
              f"detection on, {statistics.median(writes[False][i]) * 1e3:.1f} ms off; shape detection "
              f"{shape * 1e3:.2f} ms, build_stub {stub * 1e3:.3f} ms")


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    if argv[:1] == ["--parts"]:
        for name, (owner, attr) in STEPS.items():
            setattr(owner, attr, timed(name, getattr(owner, attr)))
        corpus = benchlib.corpus()
        parts([benchlib.repeated(corpus, SIZE, start=i * 1_000_003) for i in range(8)])
        return 0
    reps = int(argv[0]) if argv else 7
    count = int(argv[1]) if len(argv) > 1 else 8
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, SIZE, start=i * 1_000_003) for i in range(count)]  # as T2 makes them
    for name, (owner, attr) in STEPS.items():
        setattr(owner, attr, timed(name, getattr(owner, attr)))
    times: dict[str, list[float]] = {"anchor": [], "on": [], "off": []}
    runs = {"anchor": lambda: anchor(payloads), "on": lambda: spills(payloads, True),
            "off": lambda: spills(payloads, False)}
    steps_on = dict.fromkeys(STEPS, 0.0)
    for rep in range(reps):
        order = list(runs)[rep % 3:] + list(runs)[: rep % 3]
        for name in order:
            before = dict(wall)
            times[name].append(runs[name]())
            if name == "on":
                for step in STEPS:
                    steps_on[step] += (wall[step] - before[step]) / count / reps
    med = {name: statistics.median(values) for name, values in times.items()}
    print(f"{count} payloads of 4 MiB, median of {reps} repetitions (ms per payload)")
    print(f"  anchor, one-shot zstd level 3: {med['anchor'] * 1e3:.2f} ms")
    for name, label in (("on", "spill, shape detection on (T2)"), ("off", "spill, shape detection off (bound)")):
        print(f"  {label}: {med[name] * 1e3:.2f} ms, ratio {med['anchor'] / med[name]:.2f}x")
    print("  wall time by step, detection on (mean): " + ", ".join(f"{step} {seconds * 1e3:.2f} ms"
                                                               for step, seconds in steps_on.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
