"""Time the first use of a pattern that is one long literal, as ``regex`` compiles it whole and as scratchfs's core
syntax writes it (broken every ``pattern_syntax.MAX_STRING_BYTES`` bytes): the figures in that constant's docstring.

    python bench/regex_literals.py [LENGTH ...]     # default 512 1024 2048 (4096 takes about 40 s whole)
"""

from __future__ import annotations

import re
import sys
import time

import regex

from scratchfs.engine.pattern_worker import FLAGS
from scratchfs.engine.patterns import compile_pattern


def first_use(compiled: regex.Pattern, data: bytes) -> float:
    """Seconds the first search of ``compiled`` over ``data`` takes (its search table is built then)."""
    began = time.perf_counter()
    compiled.search(data)
    return time.perf_counter() - began


def main(lengths: list[int]) -> None:
    print("length  whole (s)  broken (s)")
    for n in lengths:
        data = b"\x7f" * n
        whole = first_use(regex.compile(re.escape(data), FLAGS), data)
        broken = first_use(compile_pattern(re.escape(data.decode()), True, 1 << 20)[0], data)
        print(f"{n:6d}  {whole:9.3f}  {broken:10.4f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [512, 1024, 2048])
