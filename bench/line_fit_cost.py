"""The per-call time of ``line_fit.lines_within`` (how many lines a stub's line read holds, counted in JSON bytes):
the first 4,097 bytes (a head read) and the last 4,098 (a tail read) of 2,000 slices of 8 KiB of the bench corpus,
best of ``LOOPS``, for this checkout or another's (``ROOT``: a ``git worktree`` of a commit that has the module, e.g.
``722961e`` before its 0.7x rewrite).

    python bench/line_fit_cost.py [ROOT] [LOOPS]     # default: this checkout, 5 loops
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE.parent
    loops = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    sys.path[:0] = [str(HERE), str(root)]
    import benchlib

    from scratchfs.api.line_fit import lines_within

    corpus = benchlib.corpus()
    slices = [benchlib.repeated(corpus, 8192, start=i * 8192 + i * 7) for i in range(2000)]
    best = float("inf")
    for _ in range(loops):
        start = time.perf_counter()
        for data in slices:
            lines_within(data[:4097], False, False, True)
            lines_within(data[-4098:], True, False, False)
        best = min(best, time.perf_counter() - start)
    print(f"lines_within ({root}): {best / (2 * len(slices)) * 1e6:.1f} µs a call (best of {loops})")


if __name__ == "__main__":
    main()
