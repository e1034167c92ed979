"""The inputs where t1speed's cuts of shape detection cost more than before (issue 16), timed in this checkout or
in another (``git archive COMMIT | tar -x -C DIR``, then DIR as the argument), median of 15 calls each, thread CPU:
``line_stats`` on 512 KiB whose first 4 KiB hold few newlines and the rest many (the split made, then found dense),
and on prose (the common case it was made for); ``bare_crs`` on 512 KiB of text with CRLF pairs packed at its end
and on CRLF lines throughout.

    python bench/shape_gate_worst.py            # this checkout
    python bench/shape_gate_worst.py /tmp/old   # another, for the before (fd708de: before t1speed)
"""

from __future__ import annotations

import statistics
import sys
import time

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])

from scratchfs.api.shape_terminal import bare_crs
from scratchfs.foundation.text import line_stats

SIZE = 512 * 1024


def timed(call, data: bytes) -> float:
    """Median thread CPU of 15 calls of ``call(data)``, in microseconds."""
    times = []
    for _ in range(15):
        start = time.thread_time()
        call(data)
        times.append(time.thread_time() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    sparse_start = b"x" * 59 + b"\n"
    cases = {
        "line_stats, 4 KiB of 60-byte lines then 15-byte lines": (
            line_stats, (sparse_start * 69)[:4096] + (b"y" * 14 + b"\n") * ((SIZE - 4096) // 15)),
        "line_stats, 4 KiB of 60-byte lines then 3-byte lines": (
            line_stats, (sparse_start * 69)[:4096] + b"ab\n" * ((SIZE - 4096) // 3)),
        "line_stats, prose (80-byte lines)": (line_stats, (b"word " * 15 + b"wor\n") * (SIZE // 80)),
        "bare_crs, CRLF pairs packed at the end": (
            bare_crs, b"z" * (SIZE - SIZE // 8) + b"a\r\n" * (SIZE // 24) + b"\r"),
        "bare_crs, CRLF lines of 14 bytes": (bare_crs, (b"y" * 12 + b"\r\n") * (SIZE // 14)),
    }
    for name, (call, data) in cases.items():
        print(f"{timed(call, data):9,.0f} us  {name}")


if __name__ == "__main__":
    main()
