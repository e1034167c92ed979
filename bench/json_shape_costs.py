"""Two costs of JSON shapes and pages, each as shipped against the way before, alternating in one process, best of
``LOOPS``, calling-thread CPU:

* the garbage collector paused for a parse (scratchfs/foundation/collector.py) or running: describe of a closed
  512 KiB JSON array of small arrays (a spill's shape, bounded by tests/test_hostile26_cost.py at 10 times 512 KiB
  of grep output's), and ``load_exact`` of a 10 MB array of small objects (a jq read's output parsed for its page);
* a cut JSON object's shape (api/shape_partial.py) wording only the 12 keys it lists, or every key: describe of
  512 KiB of ``{"k0": [1, 2], "k1": ...`` cut by the sample's end.

    python bench/json_shape_costs.py [LOOPS]      # default 5

What it printed on 2026-12-07 at 07:30 UTC (six helpers running): describe of the closed array 24.4 -> 17.8 ms a
call (1.38x), load_exact 721 -> 329 ms (2.19x), the cut object 21.0 -> 14.2 ms (1.48x). At 09:20 UTC, quiet, with
the collector paused over the whole JSON shape (the parsed value freed before it resumes) and a cut object's keys
past the 12 listed counted in one parse (hostile35): 24.9 -> 16.7 ms, 731 -> 328 ms, 21.2 -> 3.4 ms. The collector's
share grows with the objects the process already holds: in a pytest worker the closed array's describe took 44 ms
before.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api import shape_json, shape_partial
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
        now, before = _alternating(function, loops, _collector_running)
        print(f"{name:45} collector running {before:8.1f} ms   paused {now:8.1f} ms   ({before / now:.2f}x)")
    cut = b"{" + b"".join(b'"k%d": [1, 2], ' % i for i in range(SIZE // 12))[:SIZE]
    now, before = _alternating(lambda: describe(cut, len(cut), 1), loops, _every_key_worded)
    print(f"{'describe, 512 KiB object of arrays cut':45} every key worded  {before:8.1f} ms   12 keys {now:8.1f} ms   "
          f"({before / now:.2f}x)")


@contextlib.contextmanager
def _collector_running():
    shape_json.CollectorPaused = numbers.CollectorPaused = contextlib.nullcontext
    try:
        yield
    finally:
        shape_json.CollectorPaused = numbers.CollectorPaused = CollectorPaused


@contextlib.contextmanager
def _every_key_worded():
    listed, shape_partial._LISTED = shape_partial._LISTED, 10**9
    try:
        yield
    finally:
        shape_partial._LISTED = listed


def _alternating(function, loops: int, before) -> tuple[float, float]:
    """The best CPU ms of ``function`` as shipped and under the ``before`` context, two rounds alternating."""
    now = was = float("inf")
    for _ in range(2):
        now = min(now, _best(function, loops))
        with before():
            was = min(was, _best(function, loops))
    return now, was


if __name__ == "__main__":
    main()
