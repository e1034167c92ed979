"""What a log's shape pays for the syslog and dpkg counts (:func:`scratchfs.api.shape_syslog.syslog_told`) when it
is neither: the gates over the first 4 KiB, on 4 KiB and on 512 KiB of a plain log line repeated, best of N calls.

    python bench/syslog_gate.py [N]    # default 200

2026-12-08, 03:40 UTC, idle: before the review mend (at 1e04259: the sample copied and its lines counted before the
gates) 312.9 us at 512 KiB, 13.4 us at 4 KiB; after, 12.2 and 12.2 us."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api.shape_log import Told
from scratchfs.api.shape_syslog import syslog_told

_LINE = b"2026-12-08 02:35:52,123 INFO worker.pool: task 1234 done in 0.52s\n"


def best_us(sample: bytes, calls: int) -> float:
    """The least wall time of ``calls`` calls of ``syslog_told`` over ``sample``, in microseconds. Never raises."""
    told, best = Told("", None), float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        syslog_told(sample, told)
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def main(argv: list[str]) -> None:
    """Print the two figures; ``argv``: ``[N]``. Raises ValueError for an N that is no integer."""
    calls = int(argv[0]) if argv else 200
    whole = (_LINE * (512 * 1024 // len(_LINE) + 1))[: 512 * 1024]
    whole = whole[: whole.rfind(b"\n") + 1]
    print(f"512 KiB of a plain log: {best_us(whole, calls):.1f} us; 4 KiB: {best_us(whole[:4096], calls):.1f} us")


if __name__ == "__main__":
    main(sys.argv[1:])
