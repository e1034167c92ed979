"""Spill a number of distinct payloads of one size into a fresh store and print spills per second and the CPU time of
the spilling thread per spill: the loop to run under ``strace -f -c`` or ``perf stat`` when counting what one spill
costs (issue 16).

    python bench/spill_loop.py SIZE_BYTES COUNT [DIR]     # e.g. 16384 1000, or 4194304 8

The payloads are the real corpus repeated (``benchlib.repeated``), as T1 and T2 use them; the store is made in a new
directory under ``DIR`` (default: the system temp directory) and removed afterwards. One spill before the timed loop
opens the index and the directories, so the counts are those of the steady state plus a fixed start-up.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    size, count = int(argv[0]), int(argv[1])
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count + 1)]
    directory = tempfile.mkdtemp(prefix="spill-loop-", dir=argv[2] if len(argv) == 3 else None)
    try:
        with ScratchStore(directory) as store:
            scope = store.scope("bench", "loop")
            scope.spill(payloads[0], source_tool="bench.loop")
            start, cpu = time.perf_counter(), time.thread_time()
            for payload in payloads[1:]:
                scope.spill(payload, source_tool="bench.loop")
            seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{count / seconds:,.0f} spills/s of {size:,} bytes ({seconds / count * 1e6:,.0f} µs each, "
          f"{cpu / count * 1e6:,.0f} µs of the spilling thread's CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
