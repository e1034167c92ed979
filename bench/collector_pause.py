"""What pausing the garbage collector for a JSON parse buys (scratchfs/foundation/collector.py): describe of a
closed 512 KiB JSON array of small arrays (a spill's shape, bounded at 20 ms by tests/test_text_kinds_cost.py), and
``load_exact`` of a 10 MB array of small objects (a jq read's output parsed for its page), each with the pause as
shipped and with it replaced by a no-op, alternating, best of ``LOOPS``, calling-thread CPU.

    python bench/collector_pause.py [LOOPS]      # default 5

What it printed on 2026-12-07 (six helpers running): describe 26.3 -> 19.4 ms a call (1.36x), load_exact 799 ->
338 ms (2.37x). The collector's share grows with the objects the process already holds: in a pytest worker the same
describe took 44 ms before the pause (tests/test_hostile26_cost.py's bound is 10 times 512 KiB of grep output's).
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api import shape_json
from scratchfs.api.shape import describe
from scratchfs.engine.structure import numbers
from scratchfs.foundation.collector import CollectorPaused

SIZE = 512 * 1024


def _arrays() -> bytes:
    text = b"[" + b"[[1,2],[3]], " * (SIZE // 13)
    return text[: SIZE - 20].rsplit(b",", 1)[0] + b"]"


def _best(function, loops: int) -> float:
    best = float("inf")
    for _ in range(loops):
        start = time.thread_time()
        function()
        best = min(best, time.thread_time() - start)
    return best * 1000


def main() -> None:
    loops = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    arrays = _arrays()
    objects = ("[" + ",".join(['{"a":[1,2],"b":{"c":"x"}}'] * 400_000) + "]")
    cases = {"describe, 512 KiB array of arrays": lambda: describe(arrays, len(arrays), 1),
             f"load_exact, {len(objects) / 1e6:.1f} MB array of objects": lambda: numbers.load_exact(objects)}
    for name, function in cases.items():
        paused = off = float("inf")
        for _ in range(2):
            paused = min(paused, _best(function, loops))
            shape_json.CollectorPaused = numbers.CollectorPaused = contextlib.nullcontext
            try:
                off = min(off, _best(function, loops))
            finally:
                shape_json.CollectorPaused = numbers.CollectorPaused = CollectorPaused
        print(f"{name:45} collector running {off:8.1f} ms   paused {paused:8.1f} ms   ({off / paused:.2f}x)")


if __name__ == "__main__":
    main()
