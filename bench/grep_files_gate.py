"""The files pattern of grep output (``foundation.text._GREP_FILES_RE``, run over a whole 512 KiB sample whose head
is grep output) with its gate and without it, on T2's 512 KiB samples and on hostile lines (best of 15, ms).

    python bench/grep_files_gate.py
"""

from __future__ import annotations

import re
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.foundation import text

UNGATED = re.compile(text._GREP_FILES_RE.pattern.replace(text._GREP_FILES_GATE, rb"\n", 1))
HOSTILE = {"short lines, no colon": b"\nabc" * 100_000, "colons, no digit": b"\na:b:c:d:e:f:g" * 40_000,
           "colons and digits": b"\na:1x:2y:3z:4q" * 40_000, "lines of 3,000 bytes": (b"\n" + b"x" * 3000) * 150,
           "grep output": b"\nsrc/a.py:12:x = 1" * 30_000, "399 spaces then :1": (b"\n" + b" " * 399 + b":1") * 1200}


def best(pattern: re.Pattern, data: bytes) -> float:
    return min(timeit.repeat(lambda: pattern.findall(data), number=1, repeat=15)) * 1e3


def main() -> int:
    corpus = benchlib.corpus()
    cases = {f"T2 payload {i}": b"\n" + benchlib.repeated(corpus, 4 * 1024 * 1024, start=i * 1_000_003)[: 512 * 1024]
             for i in range(8)}
    for name, data in {**cases, **HOSTILE}.items():
        assert UNGATED.findall(data) == text._GREP_FILES_RE.findall(data), name
        print(f"{name:>24s}: ungated {best(UNGATED, data):6.3f} ms, gated {best(text._GREP_FILES_RE, data):6.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
