"""A tail read of a tar member given ``end=`` alone (``read_handle(line=-1, end=E)``): its lower bound is the member
whose data holds byte ``E - 1`` (``api.bounds.member_start``), found by walking the tar's headers from its start.
Times that first read on tars of many small members and of few large ones, spilled into a fresh temporary store.

    python bench/tar_tail_walk.py

What it showed on 2026-12-07 (load ~3): 20,000 small members (20 MB) 3.1 s with one range read
a header, 0.43 s reading 16 KiB at a time after a near header; 2,000 of 100 KB (200 MB) 0.20 s and 0.18 s; 200 of
1 MB 0.02 s either way. At 06:52 UTC, quiet: 0.32 s, 0.12 s, 0.013 s.
"""

from __future__ import annotations

import io
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore

CASES = ((20_000, 20), (2_000, 100_000), (200, 1_000_000))  # (members, bytes of padding in each)


def _tar(count: int, size: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for i in range(count):
            data = (f"line {i}\n" + "x" * size + f"\nlast {i}\n").encode()
            info = tarfile.TarInfo(f"f{i}.txt")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def main() -> None:
    for count, size in CASES:
        payload, directory = _tar(count, size), tempfile.mkdtemp(prefix="tar-tail-")
        try:
            with ScratchStore(directory) as store:
                scope = store.scope("bench", "tar")
                handle = scope.spill(payload, source_tool="tar").handle
                last = f"last {count - 1}\n".encode()
                end = payload.rfind(last) + len(last)
                began = time.perf_counter()
                page = scope.read_handle(handle, line=-1, end=end)
                took = time.perf_counter() - began
            assert page.data == last, page.data
            print(f"{count:>6,} members of ~{size:,} bytes ({len(payload):,} bytes): {took:.3f} s")
        finally:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
