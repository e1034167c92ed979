"""Shape detection (``describe``) of 64 KiB of CSV/TSV with hundreds to thousands of columns, against a narrow table
of the same size: a wide table should cost no more per byte than a narrow one (branch wide1: the header vote,
``table_start.header_votes``, ran per cell of the first 21 rows, 33 ms for 4,000 columns). Two checkouts alternated
in back-to-back processes (the same module names cannot be loaded twice in one), best of ``LOOPS`` calls a process
(process CPU, not wall: the machine is shared), medians over the rounds.

    python bench/wide_tables.py [BEFORE_ROOT] [ROUNDS]   # default: /work/main, 3 rounds; AFTER is this checkout
    python bench/wide_tables.py --one ROOT               # one process's figures for ROOT (what the rounds run)

A BEFORE_ROOT needs only its ``scratchfs/`` (``git archive main scratchfs | tar -x -C /tmp/before``).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib

HERE = Path(__file__).resolve().parent
SIZE = 65536
WIDTHS = (400, 1000, 4000)
LOOPS = 5


def _lines(line: bytes, rows: bytes | None = None) -> bytes:
    """``line`` then ``rows`` (``line`` again when ``None``) repeated, cut to :data:`SIZE` at a line's end (a line
    longer than that: cut inside it)."""
    data = line + (rows if rows is not None else line) * (SIZE // len(rows or line) + 1)
    end = data.rfind(b"\n", 0, SIZE) + 1
    return data[: end if end > len(line) else SIZE]


def cases() -> dict[str, bytes]:
    """The contents timed: per width, cells of ``a`` with a trailing comma (the hostile pass's), quoted cells, a
    TSV header of names over rows of numbers; and the first 64 KiB of the narrow fixture CSV."""
    found: dict[str, bytes] = {}
    for width in WIDTHS:
        found[f"CSV 'a,' x {width}"] = ((b"a," * width + b"\n") * 10)[:SIZE]
        found[f"CSV quoted x {width}"] = _lines(b",".join([b'"a b"'] * width) + b"\n")
        header = b"\t".join(b"name%d" % n for n in range(width)) + b"\n"
        found[f"TSV names over numbers x {width}"] = _lines(header, b"\t".join(b"%d" % (n * 7) for n in range(width))
                                                          + b"\n")
    narrow = (HERE.parent / "fixtures" / "query-packages-by-month.csv").read_bytes()[:SIZE]
    found["CSV 4 columns (fixture)"] = narrow[: narrow.rfind(b"\n") + 1]
    return found


def one(root: str) -> dict[str, list]:
    """``{case: [µs a call, shape]}`` with ``scratchfs`` imported from ``root``."""
    sys.path.insert(0, root)
    from scratchfs.api.shape import describe

    figures: dict[str, list] = {}
    for name, data in cases().items():
        lines = data.count(b"\n") + (data[-1:] != b"\n")
        best = float("inf")
        for _ in range(LOOPS):
            start = time.process_time()
            found = describe(data, len(data), lines)
            best = min(best, time.process_time() - start)
        figures[name] = [best * 1e6, found.text[:60]]
    return figures


def main(argv: list[str]) -> int:
    pair = benchlib.checkout_pair(__file__, argv, one, 3)
    if pair is None:
        return 0
    before, after, runs = pair
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for case, (_, shape) in runs[after][0].items():
        was = statistics.median(run[case][0] for run in runs[before])
        now = statistics.median(run[case][0] for run in runs[after])
        same = "same shape" if shape == runs[before][0][case][1] else f"WAS {runs[before][0][case][1]!r}"
        print(f"{case:34} {was / 1000:7.2f} -> {now / 1000:6.2f} ms ({was / now:5.1f}x)  {shape!r} ({same})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
