"""What telling an aligned table's layout again costs a rows read (the figures ``structured._LAYOUTS`` and
``_headless`` quote): :func:`~scratchfs.engine.structure.aligned.source_layout` over the aligned tables of
``fixtures/tools`` (as a rows read of an entry whose shape says "aligned by spaces" calls it when the layout is not
cached) and :func:`~scratchfs.api.shape_columns.runs_starts` over the first ``COLUMNS_BYTES`` of the headerless
ones, in microseconds a call (best of ``REPS`` loops of 20 calls, calling-thread CPU).

    python bench/layout_cost.py [REPS]        # default 5

What it showed at 14:15 UTC on 2026-12-05 (load 3.8, helpers starting): ``source_layout`` 41-710 us over 28 aligned
tables (``df``, ``free``, ``lsblk`` 40-80 us; ``ps aux``, ``top -bn1``, ``lsof``, ``dpkg -l`` 480-710 us; most over
200 us), ``runs_starts`` 102-299 us over the 3 headless ones: the cost a page read saves by the cache.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api.shape import describe
from scratchfs.api.shape_aligned import header_line
from scratchfs.api.shape_columns import COLUMNS_BYTES, headless_columns, runs_starts
from scratchfs.engine.structure.aligned import source_layout
from scratchfs.engine.structure.paging import BytesSource

ROOT = Path(__file__).resolve().parent.parent


def _cpu(call, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        start = time.thread_time()
        for _ in range(20):
            call()
        best = min(best, (time.thread_time() - start) / 20)
    return best


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for path in sorted((ROOT / "fixtures" / "tools").glob("*.txt")):
        data = path.read_bytes()
        shape = describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))
        if shape.content_type == "text" and headless_columns(shape.text) is not None:
            took = _cpu(lambda: runs_starts(data[:COLUMNS_BYTES]), reps)  # noqa: B023
            print(f"{path.name:<32} headless columns  runs_starts   {took * 1e6:7.1f} us")
        elif "aligned" in (shape.text or ""):
            source, header = BytesSource(data), header_line(shape.text)
            if source_layout(source, header) is None:
                continue
            took = _cpu(lambda: source_layout(source, header), reps)  # noqa: B023
            print(f"{path.name:<32} aligned table     source_layout {took * 1e6:7.1f} us")


if __name__ == "__main__":
    main()
