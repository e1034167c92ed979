"""T8's ``scratch_read`` beside its anchor for two checkouts, back to back (issue 16): the p50 of ``scope.scratch_read``
of a 1 KiB value and of ``diskcache.Cache.get`` of the same value, read alternately 2,000 times each, 3 rounds, in one
process per checkout (the same module names cannot be loaded twice in one), stores in ``/dev/shm`` when there is one.
Whether a change of the ratio is this code's or the anchor's: the 20:22 UTC run of 2026-12-04 gave 1.52x, and this
gave 11.0 and 11.2 us against 7.3 and 7.4 us for ``ffb52d4`` and that run's code.

    python bench/scratch_read_ab.py [OTHER_ROOT]     # default: this checkout alone
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_WORKER = r"""
import os, shutil, statistics, sys, tempfile, time
root = sys.argv[1]
sys.path[:0] = [root + "/bench", root]
import benchlib, diskcache
from scratchfs import ScratchStore
value = benchlib.repeated(benchlib.corpus(), 1024, start=12345)
where = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
try:
    with ScratchStore(where + "/store") as store, diskcache.Cache(where + "/cache") as cache:
        scope = store.scope("bench", "a")
        scope.scratch_write("value", value)
        cache.set("value", value, expire=3600)
        clock = time.perf_counter_ns
        for _ in range(3):
            ours, anchor = [], []
            for _ in range(2000):
                start = clock(); scope.scratch_read("value"); ours.append(clock() - start)
                start = clock(); cache.get("value"); anchor.append(clock() - start)
        print(f"{root}: scratch_read {statistics.median(ours) / 1000:.1f} us, diskcache.get "
              f"{statistics.median(anchor) / 1000:.1f} us ({statistics.median(ours) / statistics.median(anchor):.2f}x,"
              " last of 3 rounds)")
finally:
    shutil.rmtree(where, ignore_errors=True)
"""


def main(argv: list[str]) -> int:
    roots = [*argv[:1], str(HERE)]
    for root in roots:
        subprocess.run([sys.executable, "-c", _WORKER, root], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
