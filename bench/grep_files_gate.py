"""The files pattern of grep output (``foundation.text._GREP_TALLY_RE``, the files tally's; run over the whole
512 KiB sample whose head is grep output) with its path's bytes as a bitmap of three ranges (``_PATH_BYTE``, as it
is) against the same pattern with ``[^:\\n]`` (as it was), on T2's 512 KiB samples and on hostile texts: the
thread's CPU, best of 31, ms; and ``text.grep_tally`` whole (the files counted and the 5 with most lines, as the
grep shape asks: ``top=5``) against its count alone (``top=0``: the pattern's one findall), on the fixture of real
grep output (``fixtures/workspace-grep-stdlib-defs.txt``) too.

    python bench/grep_files_gate.py
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.foundation import text

BEFORE = re.compile(text._GREP_TALLY_RE.pattern.replace(text._PATH_BYTE, rb"[^:\n]"))
HOSTILE = {"short lines, no colon": b"\nabc" * 100_000, "colons, no digit": b"\na:b:c:d:e:f:g" * 40_000,
           "colons and digits": b"\na:1x:2y:3z:4q" * 40_000, "lines of 3,000 bytes": (b"\n" + b"x" * 3000) * 150,
           "grep output": b"\nsrc/a.py:12:x = 1" * 30_000,
           "grep output, a path a line": b"".join(b"\n./src/m%d.py:%d:def f%d(x):" % (n % 97, n, n)
                                                  for n in range(20_000)),
           "399 spaces then :1": (b"\n" + b" " * 399 + b":1") * 1200}


def best(pattern: re.Pattern, data: bytes) -> float:
    times = []
    for _ in range(31):
        start = time.thread_time()
        pattern.findall(data)
        times.append(time.thread_time() - start)
    return min(times) * 1e3


def main() -> int:
    corpus = benchlib.corpus()
    cases = {f"T2 payload {i}": b"\n" + benchlib.repeated(corpus, 4 * 1024 * 1024, start=i * 1_000_003)[: 512 * 1024]
             for i in range(8)}
    for name, data in {**cases, **HOSTILE}.items():
        assert BEFORE.findall(data) == text._GREP_TALLY_RE.findall(data), name
        print(f"{name:>28s}: [^:\\n] {best(BEFORE, data):6.3f} ms, bitmap {best(text._GREP_TALLY_RE, data):6.3f} ms")
    grep = (Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes()
    for name, data in {"grep fixture": grep, **cases}.items():
        print(f"{name:>28s}: grep_tally top=5 {tally(data, 5):6.3f} ms, top=0 {tally(data, 0):6.3f} ms")
    return 0


def tally(data: bytes, top: int) -> float:
    """``text.grep_tally(data, top)``'s thread CPU, best of 31, ms."""
    times = []
    for _ in range(31):
        start = time.thread_time()
        text.grep_tally(data, top)
        times.append(time.thread_time() - start)
    return min(times) * 1e3


if __name__ == "__main__":
    sys.exit(main())
