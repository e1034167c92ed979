"""What a read of UTF-16 text costs (``encoding="utf-16le"``: scratchfs/api/wide_lines.py, wide_search.py,
wide_index.py): the first line read or search counts the content's newline code units per frame (the stored line
index counts ``0a`` bytes, which CJK characters hold) and keeps the counts in memory; every later one bisects them and
scans only the frames it reads.

    python bench/utf16_reads.py [MIB]     # default 32: MIB of UTF-16LE text of CJK and ASCII lines

Prints the spill's seconds (its content streamed in 1 MiB chunks, never held whole by this script), then four reads
through the model's tool (a line read near the end, a search from past the middle, the line read again, a line read
from the end), each its wall seconds and the bytes of the reply the model receives (``api.views.reply_text``), and
the growth of the process's peak RSS from after the imports and the store's opening to the end.

At 32 MiB on 2 cores shared with other sessions (load 5-6; 2026-12-07, 22:27 UTC), run back to back with the
script of 3dada0d8 (each read scanned from the start and kept every line's start; content over 64 MiB refused):
before, 1.6-2.3 s a read, every read (~0.5 s on an idle machine), 503- and 835-byte replies, peak RSS 99 MiB (that
script held its 32 MiB twice; this one on that code: 1.4-3.4 s a read, peak RSS grown 15 MiB); after, the first
line read 0.6-0.8 s (it counts the frames), the search 0.005 s, the line read again 0.001 s, the replies' bytes
unchanged, peak RSS grown 7 MiB (58 MiB). At 256 MiB: the first line read 2.2 s, the next 0.001 s, peak RSS grown
7 MiB. Targets: a repeated read <= 20 ms, the first no slower than before, the script's peak RSS growth <= 40 MiB.
Its frames counted by ``wide_count.newline_units`` (a decode and ``str.count``, as the spill counts the stub's
lines) instead of ``array("H").count`` (2026-12-08, 00:50 UTC, idle): the first line read 0.37 -> 0.10-0.12 s."""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_text

LINE = "上海 line of text number\r\n"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _chunks(count: int) -> Iterator[bytes]:
    """``"\\ufeff" + LINE * count`` as UTF-16LE, about 1 MiB a chunk."""
    per = 2**20 // (2 * len(LINE))
    yield "\ufeff".encode("utf-16-le")
    for done in range(0, count, per):
        yield (LINE * min(per, count - done)).encode("utf-16-le")


def main(mib: float) -> None:
    count = int(mib * 2**20 / (2 * len(LINE)))
    size = 2 + count * 2 * len(LINE)
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        base = _peak_mib()
        scope = store.scope("r", "a")
        began = time.perf_counter()
        handle = scope.spill(_chunks(count), source_tool="t").handle
        print(f"{size / 2**20:.1f} MiB spilled in {time.perf_counter() - began:.2f} s")
        tools = ScratchTools(scope)
        line = count * 9 // 10
        for args in ({"line": line, "lines": 5}, {"match": "海", "offset": size // 2, "max_matches": 3},
                     {"line": line, "lines": 5}, {"line": -3, "lines": 3}):
            began = time.perf_counter()
            reply = tools.call("read_handle", {"handle": handle, "encoding": "utf-16le", **args})
            took = time.perf_counter() - began
            print(f"{sorted(args)}: {took:.3f} s, reply {len(reply_text(reply).encode()):,} bytes")
    print(f"peak RSS {_peak_mib():.0f} MiB, grown {_peak_mib() - base:.0f} MiB from {base:.0f} MiB")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 32.0)
