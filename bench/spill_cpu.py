"""The CPU of what a spill computes besides storing bytes (issue 16): shape detection (``describe``) and the stub
(``build_stub``) of 2,000 16 KiB slices of the bench corpus (the payloads of ``spill_loop.py`` and T1) and of twelve
512 KiB samples (a large spill's shape sample, T2), and of a real ``ps auxww`` table (``fixtures/tools/``: text
to the reference, a table aligned by spaces since 2026-12-03), this code against the copies of the code before the
CPU work (``tests/reference_shape.py``, ``tests/reference_stub.py``), alternating in one process, medians.

    python bench/spill_cpu.py [REPETITIONS]      # default 7
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from tests import reference_shape, reference_stub


def _per_call(function, items) -> float:
    start = time.perf_counter()
    for item in items:
        function(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 7
    corpus = benchlib.corpus()
    size = 16384
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(2000)]
    lines = [p.count(b"\n") + (p[-1:] != b"\n") for p in payloads]
    samples = [benchlib.repeated(corpus, 4 << 20, start=i * 977)[:SAMPLE_BYTES] for i in range(12)]
    shapes = [describe(p, size, n) for p, n in zip(payloads, lines, strict=True)]
    handle = "h_" + "a" * 24
    table = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ps-auxww.txt").read_bytes()

    def stub_of(build):
        return lambda i: build(handle, payloads[i], b"", size, lines[i], shapes[i].content_type, shapes[i].text,
                               "bench.loop", 1024, "head")

    cases = {
        "describe, 16 KiB": (lambda i: describe(payloads[i], size, lines[i]),
                             lambda i: reference_shape.describe(payloads[i], size, lines[i]), range(len(payloads))),
        "build_stub, 16 KiB": (stub_of(build_stub), stub_of(reference_stub.build_stub), range(len(payloads))),
        "describe, 512 KiB sample of 4 MiB": (lambda s: describe(s, 4 << 20, 40_000),
                                              lambda s: reference_shape.describe(s, 4 << 20, 40_000), samples),
        "describe, ps auxww (a table aligned by spaces, 12 KB)": (
            lambda t: describe(t, len(t), t.count(b"\n")),
            lambda t: reference_shape.describe(t, len(t), t.count(b"\n")), [table] * 50),
    }
    for name, (new, old, items) in cases.items():
        now, before = [], []
        for _ in range(reps):
            now.append(_per_call(new, items))
            before.append(_per_call(old, items))
        after_us, before_us = statistics.median(now), statistics.median(before)
        print(f"{name}: {before_us:,.1f} -> {after_us:,.1f} µs a call ({before_us / after_us:.2f}x; {reps} "
              "alternations, medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
