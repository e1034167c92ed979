"""The last match of a 50 MB log (``read_handle(..., before=<size>)``) against what a forward search pays for it.

The content: ``fixtures/workspace-grep-stdlib-defs.txt`` (real ``grep -rn`` output, one match a line) repeated to
50 MB, with a ``make``-style error line placed ``--gap`` bytes before the end (the last "error:"). Each row times the
model-facing call (``ScratchTools.read_handle``: search, windows and reply) and gives the fastest of ``--repeat``:

* ``before=size``: the last match(es), read back from the end;
* ``count=true``: one forward pass over the whole content, the least a forward search pays to reach the last match
  (paging forward with ``next_call`` reads as much, over many calls);
* ``offset=0``: the first matches, for scale (a forward search that stops early).

    python bench/last_match.py [--size MB] [--gap BYTES] [--repeat N]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from benchlib import FIXTURES, MIB, repeated

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools

ERROR_LINE = b"src/engine/frames.c:412:9: error: 'frame_end' undeclared (first use in this function)\n"
SEARCHES = [
    ("match error:", {"match": "error:"}),
    ("match undeclared", {"match": "undeclared"}),
    ("match def __init__", {"match": "def __init__"}),
    ("pattern within lines", {"pattern": r"^[^:\n]+:\d+:[ \t]*def __\w+__\(self"}),
    ("pattern spanning lines", {"pattern": r"\):\n\./\w+\.py"}),
]


def content(size: int, gap: int) -> bytes:
    """``size`` bytes of the grep fixture repeated, :data:`ERROR_LINE` starting ``gap`` bytes before the end (at a
    line start)."""
    body = repeated((FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes(), size)
    at = body.rfind(b"\n", 0, max(1, size - gap)) + 1
    return body[:at] + ERROR_LINE + body[at + len(ERROR_LINE):]


def fastest(call, repeat: int) -> tuple[float, dict]:
    best, reply = float("inf"), {}
    for _ in range(repeat):
        began = time.perf_counter()
        reply = call()
        best = min(best, time.perf_counter() - began)
    return best, reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50, help="content size, MB (10^6 bytes)")
    parser.add_argument("--gap", type=int, default=2000, help="bytes from the error line to the end")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = content(args.size * 1_000_000, args.gap)
    with tempfile.TemporaryDirectory() as root, ScratchStore(root=root) as store:
        scope = store.scope("bench", "a")
        handle = scope.spill(data, source_tool="make").handle
        tools = ScratchTools(scope)
        print(f"{len(data) / MIB:.1f} MiB, error line {len(data) - data.rindex(b'undeclared')} bytes before the end")
        print(f"{'search':24} {'before=size (ms)':>17} {'count=true (ms)':>16} {'ratio':>7} {'offset=0 (ms)':>14}"
              "  last match found")
        for name, what in SEARCHES:
            last, reply = fastest(lambda w=what: tools.read_handle(handle, before=len(data), max_matches=1, **w),
                                  args.repeat)
            whole, counted = fastest(lambda w=what: tools.read_handle(handle, count=True, **w), args.repeat)
            first, _ = fastest(lambda w=what: tools.read_handle(handle, max_matches=1, **w), args.repeat)
            hits = [w.get("match_offset", w["offset"]) for w in reply["windows"]]
            note = "" if "note" not in counted else " (count stopped by its time bound)"
            print(f"{name:24} {last * 1000:17.1f} {whole * 1000:16.1f} {whole / last:6.1f}x {first * 1000:14.1f}"
                  f"  {hits[-1] if hits else None}{note}")


if __name__ == "__main__":
    main()
