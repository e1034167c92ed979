"""Two figures of the seventh session of 2026-12-06's closing note, reproduced:

* ``describe`` of 512 KiB of the shortest diagnostics lines each kind counts (``tests/test_hostile24_cost.py``'s
  samples: ``::error::`` lines, ``a:1: error: `` lines, rustc's short format...) against 512 KiB of plain grep output,
  the least thread CPU of 3 calls (ms, and the ratio the test bounds at 10x + 5 ms): the severities counted by
  patterns of one group (``shape_diagnostics._SEVERITY_OF``) took ``::error::`` from 28 to 10.5 ms, ``a:1: error: ``
  from 20 to 12.3 ms, against 2-3 ms for plain text (19:08 UTC, quiet; at 19:37 UTC, load about 1:
  plain 3.2 ms, the six kinds 2.2-5.9x plain).
* the peak of Python's allocations (``tracemalloc``) during a rows read whose first row is one line of 4 MiB of a
  table drawn with pipes or box lines (``tests/test_hostile22_memory.py``'s case, which bounds it at 12 times the
  line): 12.9x before the header's reader was let go before the page reads its first row again, 8.3x after
  (``lines`` form, 18:32 UTC; 8.2x at 19:37 UTC, the markdown and psql forms 6.0x).

    python bench/hostile_costs.py
"""

from __future__ import annotations

import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from tests.test_hostile22_memory import HEADS
from tests.test_hostile24_cost import HOSTILE
from tests.test_text_kinds_cost import FIXTURES, SIZE, cpu


def diagnostics() -> None:
    plain = cpu((FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE])
    print(f"plain grep output, 512 KiB: {plain * 1000:.1f} ms a describe")
    for name, data in HOSTILE.items():
        took = cpu(data)
        print(f"  {name}: {took * 1000:.1f} ms ({took / plain:.1f}x plain; bound {10 * plain * 1000 + 5:.1f} ms)")


def row_memory() -> None:
    for form, (head, unit) in sorted(HEADS.items()):
        line = b"x" + unit * (4 * 1024 * 1024 // len(unit))
        with ScratchStore(tempfile.mkdtemp()) as store:
            scope = store.scope("bench", "a")
            handle = scope.spill(head + line + b"\n 3 | 4\n", source_tool="t").handle
            tools = ScratchTools(scope)
            tracemalloc.start()
            try:
                tools.call("read_handle", {"handle": handle, "row": 1, "rows": 5, "budget": 4096})
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        print(f"  rows read of a 4 MiB row, {form}: peak {peak / len(line):.1f}x the line (bound 12x)")


if __name__ == "__main__":
    diagnostics()
    row_memory()
