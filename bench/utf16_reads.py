"""What a read of UTF-16 text costs (``encoding="utf-16le"``: scratchfs/api/wide_lines.py, wide_search.py): each line
read and each search scans the content's newline code units from its start (the stored line index counts ``0a``
bytes, which CJK characters hold), up to 64 MiB, on every call -- no index of them is kept.

    python bench/utf16_reads.py [MIB]     # default 32: MIB of UTF-16LE text of CJK and ASCII lines

Prints the spill's seconds, then three reads through the model's tool (a line read near the end, a search from
past the middle, the line read again), each its wall seconds and the bytes of the reply the model receives
(``api.views.reply_text``), and the process's peak RSS. At 32 MiB on 2 cores (2026-12-07, 21:50 UTC): each read
~0.5 s and a 503- or 834-byte reply, peak RSS 98-115 MiB (a UTF-8 text's line read near the end: L1, ~0.2 ms)."""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_text

LINE = "上海 line of text number\r\n"


def main(mib: float) -> None:
    count = int(mib * 2**20 / (2 * len(LINE)))
    data = ("\ufeff" + LINE * count).encode("utf-16-le")
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("r", "a")
        began = time.perf_counter()
        handle = scope.spill(data, source_tool="t").handle
        print(f"{len(data) / 2**20:.1f} MiB spilled in {time.perf_counter() - began:.2f} s")
        tools = ScratchTools(scope)
        line = count * 9 // 10
        for args in ({"line": line, "lines": 5}, {"match": "海", "offset": len(data) // 2, "max_matches": 3},
                     {"line": line, "lines": 5}):
            began = time.perf_counter()
            reply = tools.call("read_handle", {"handle": handle, "encoding": "utf-16le", **args})
            took = time.perf_counter() - began
            print(f"{sorted(args)}: {took:.3f} s, reply {len(reply_text(reply).encode()):,} bytes")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 32.0)
