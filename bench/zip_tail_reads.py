"""A zip member's tail read given ``end=`` alone (``read_handle(line=-1, end=E)``), read again and again: its lower
bound is the member whose data holds byte ``E - 1`` (``api.bounds.member_start``), found from the zip's central
directory. Times the first read and the mean of the next ones on zips of many small stored members, spilled into a
fresh temporary store.

    python bench/zip_tail_reads.py [MEMBERS ...]

What it showed on 2026-12-07 (branch leftovers2, load ~2), 60,000 members (7.5 MB): before, every read walked the
directory again (first 0.63 s, then 0.49 s a read); after, the directory's member offsets are kept per entry
(``api.zip_directory``), so a read after the first costs 0.9 ms (first 0.29 s: no names kept).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore

REPEATS = 20


def _zip(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for i in range(count):
            archive.writestr(f"dir/f{i}.txt", f"line {i}\nlast {i}\n")
    return out.getvalue()


def main(counts: list[int]) -> None:
    for count in counts:
        payload, directory = _zip(count), tempfile.mkdtemp(prefix="zip-tail-")
        try:
            with ScratchStore(directory) as store:
                scope = store.scope("bench", "zip")
                handle = scope.spill(payload, source_tool="zip").handle
                ends = []
                for i in range(count - REPEATS - 1, count):  # (each a different member: a cache of one answer
                    last = f"last {i}\n".encode()  # would not do)
                    ends.append((payload.rfind(last) + len(last), last))
                took = []
                for end, last in ends:
                    began = time.perf_counter()
                    page = scope.read_handle(handle, line=-1, end=end)
                    took.append(time.perf_counter() - began)
                    assert page.data == last, (page.data, last)
            rest = sum(took[1:]) / len(took[1:])
            print(f"{count:>7,} members ({len(payload):,} bytes): first {took[0]:.3f} s, then {rest * 1000:.1f} ms "
                  f"a read (mean of {len(took) - 1})")
        finally:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [60_000])
