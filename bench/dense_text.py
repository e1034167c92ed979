"""What shape detection costs on text of many short lines, against plain text of the same size (the figures in
:func:`scratchfs.foundation.text.line_stats`'s docstring): 512 KiB of bare newlines, CRLF line ends, one-byte lines
and runs of empty lines, described as a spill describes its sample.

    python bench/dense_text.py [REPS]      # default 9; prints the fastest CPU time of each, ms, and its ratio
    python bench/dense_text.py count [MIB]  # count=true of dense needles over MIB (default 68) of the same text

``count``: ``read_handle(handle, match=M, count=True)`` over the grep output repeated to 68 MiB, for needles from
dense (``e``: ~5 a line) to sparse: wall seconds (the fastest of 3), the matches and lines counted, how far the
count got (a count stops at its time bound, 4 s by default, and names where it goes on) and whether the matches
equal ``bytes.count`` of the text. Before the literal fast path (``engine/literal_count.py``) ``e`` stopped at the
bound near 55 MB.

The plain text is the fixtures' grep output repeated to 512 KiB (``benchlib.repeated``). The script imports only
``describe``: copied into a checkout of an earlier commit (``6e57a41``), it gives the figures from before
``line_stats`` (bare newlines 10-17 ms, 5-8 times plain text, on 2026-12-03).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api.shape import describe

SIZE = 512 * 1024


def fastest(data: bytes, reps: int) -> float:
    """The fastest thread CPU time (seconds) of ``reps`` descriptions of ``data``."""
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    best = float("inf")
    for _ in range(reps):
        start = time.thread_time()
        describe(data, len(data), lines)
        best = min(best, time.thread_time() - start)
    return best


def count_main(mib: int) -> None:
    """The ``count`` lines (see the module docstring)."""
    import tempfile

    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools

    data = benchlib.repeated((benchlib.FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes(), mib * 1024 * 1024)
    with tempfile.TemporaryDirectory() as root, ScratchStore(root=root) as store:
        scope = store.scope("bench", "a")
        handle = scope.spill(data, source_tool="grep").handle
        tools = ScratchTools(scope)
        lines = data.count(b"\n")
        print(f"count=true over {len(data) / 2**20:.0f} MiB of grep output ({lines:,} lines)")
        for needle in ("e", "s", "def", ":", "self", "__init__"):
            best, reply = float("inf"), {}
            for _ in range(3):
                began = time.perf_counter()
                reply = tools.read_handle(handle, match=needle, count=True)
                best = min(best, time.perf_counter() - began)
            reach = reply.get("next_offset") or len(data)
            exact = reply["matches"] == data.count(needle.encode(), 0, reach)
            print(f"match={needle!r:11} {best:6.2f} s  {reply['matches']:>11,} matches {reply['lines']:>10,} lines"
                  f"  counted to {reach / 1e6:5.1f} MB{'' if exact else '  (NOT bytes.count)'}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "count":
        count_main(int(sys.argv[2]) if len(sys.argv) > 2 else 68)
        return
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    plain = benchlib.repeated((benchlib.FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes(), SIZE)
    cases = {"plain text (grep output)": plain, "bare newlines": b"\n" * SIZE, "CRLF line ends": b"\r\n" * (SIZE // 2),
             "one-byte lines": b"a\n" * (SIZE // 2), "runs of empty lines": (b"\n" * 999 + b"x") * (SIZE // 1000)}
    base = fastest(plain, reps)
    for name, data in cases.items():
        spent = base if data is plain else fastest(data, reps)
        print(f"{name:26} {spent * 1000:6.2f} ms  {spent / base:4.1f}x plain text")


if __name__ == "__main__":
    main()
