"""Where shape detection (``describe``) spends its time on the small payloads T1 spills (issue 16): ``COUNT`` slices
of ``SIZE`` bytes of the bench corpus (as T1 cuts them, ``benchlib.repeated``), the mean and worst wall time per call
by the content type found, then a ``cProfile`` of the same calls sorted by each function's own time.

    python bench/describe_profile.py [SIZE_BYTES] [COUNT] [TOP]    # default: 4096 2000 18

The figures quoted for issue 16's closing notes (49 µs a 4 KiB call under cProfile, none of a dozen functions
above 17 µs) come from this script; the per-call CPU of two checkouts side by side is ``bench/shape_calls.py``.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api.shape import describe


def main() -> None:
    size, count, top = (int(a) for a in (sys.argv[1:] + ["4096", "2000", "18"][len(sys.argv) - 1 :])[:3])
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]
    for p in payloads[:50]:  # warm-up: the patterns compiled and the caches filled, as in a long-lived store
        describe(p, size, p.count(b"\n"))
    by_type: dict[str, list[float]] = defaultdict(list)
    for p in payloads:
        start = time.perf_counter()
        shape = describe(p, size, p.count(b"\n") + (not p.endswith(b"\n")))
        by_type[shape.content_type].append(time.perf_counter() - start)
    print(f"describe of {count:,} slices of {size:,} bytes of the bench corpus")
    for kind, times in sorted(by_type.items(), key=lambda kv: -len(kv[1])):
        print(f"  {kind:<6} {len(times):>6,} calls  mean {sum(times) / len(times) * 1e6:7.1f} µs  "
              f"worst {max(times) * 1e6:7.1f} µs")
    profile = cProfile.Profile()
    profile.enable()
    for p in payloads:
        describe(p, size, p.count(b"\n") + (not p.endswith(b"\n")))
    profile.disable()
    stats = pstats.Stats(profile)
    print(f"cProfile: {stats.total_tt / count * 1e6:.1f} µs a call (with the profiler's own cost)")
    stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main()
