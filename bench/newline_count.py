"""Ways to count the newlines of a large spill's content (issue 16's T2: the count is stored per frame, for line
reads): ``bytes.count`` (what the writer uses, in C, holding the GIL), a latin-1 decode then ``str.count``, and
``splitlines``, each over the same ``SIZE`` bytes of the bench corpus, best of ``LOOPS``, in one process.

    python bench/newline_count.py [SIZE_BYTES] [LOOPS]    # default: 4194304 20

Prints each way's best time and its ratio to ``bytes.count``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib


def _best(function, data: bytes, loops: int) -> tuple[float, int]:
    best, answer = float("inf"), -1
    for _ in range(loops):
        start = time.perf_counter()
        answer = function(data)
        best = min(best, time.perf_counter() - start)
    return best, answer


WAYS = (
    ("bytes.count", lambda d: d.count(b"\n")),
    ("latin-1 then str.count", lambda d: d.decode("latin-1").count("\n")),
    ("splitlines (bytes)", lambda d: len(d.splitlines()) - (not d.endswith(b"\n"))),
)


def main() -> None:
    size, loops = (int(a) for a in (sys.argv[1:] + ["4194304", "20"][len(sys.argv) - 1 :])[:2])
    data = benchlib.repeated(benchlib.corpus(), size)
    base = None
    for name, function in WAYS:
        best, answer = _best(function, data, loops)
        base = base or best
        print(f"{name:<24} {best * 1e3:7.2f} ms  {best / base:5.2f}x  ({answer:,} newlines)")


if __name__ == "__main__":
    main()
