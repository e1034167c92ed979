"""Frames decompressed ahead of a long read (``SeekableReader.iter_frames``) against decompressed in the caller's
thread, the two alternating in one process (medians printed):

    python bench/read_ahead.py [REPS]      # default 7

- ``iterate``: every frame of a 64 MiB blob of the corpus repeated (128 KiB frames), read in order;
- ``search``: ``read_handle(match=...)`` over the same content spilled into a store (T5's loop: 96 matches), paged to
  the end.

"Inline" sets ``seekable._AHEAD_MIN_FRAMES`` past any blob's frame count: no frame goes to the frame threads;
"ahead" also sets ``search.READ_AHEAD`` (a search reads inline otherwise: this script's figures are why).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.engine import search as search_module
from scratchfs.engine import seekable
from scratchfs.engine.seekable import SeekableReader, SeekableWriter, read_seek_table

MIB = 1024 * 1024
SIZE = 64 * MIB
AHEAD = seekable._AHEAD_MIN_FRAMES


def _alternate(reps: int, run) -> dict[str, float]:
    """Median milliseconds of ``run()`` inline and ahead, alternating."""
    took: dict[str, list[float]] = {"inline": [], "ahead": []}
    for _ in range(reps):
        for how, values in took.items():
            seekable._AHEAD_MIN_FRAMES = 1 << 62 if how == "inline" else AHEAD
            search_module.READ_AHEAD = how == "ahead"
            start = time.perf_counter()
            run()
            values.append((time.perf_counter() - start) * 1000)
    seekable._AHEAD_MIN_FRAMES, search_module.READ_AHEAD = AHEAD, False
    return {how: statistics.median(values) for how, values in took.items()}


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 7
    corpus = benchlib.corpus()
    data = benchlib.repeated(corpus, SIZE)
    root = Path(tempfile.mkdtemp(prefix="read-ahead-"))
    try:
        fd = os.open(root / "b.zst", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            writer = SeekableWriter(fd)
            writer.write(data)
            writer.close()
            reader = SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size))
            iterate = _alternate(reps, lambda: sum(len(c) for _, c in reader.iter_frames(batch_bytes=MIB, ahead=True)))
        finally:
            os.close(fd)
        needle = benchlib.pick_needle(corpus, max(1, round(100 / (SIZE / len(corpus)))))
        with ScratchStore(root / "store") as store:
            scope = store.scope("bench", "ahead")
            handle = scope.spill(data, source_tool="bench").handle

            def search() -> None:
                offset = 0
                while offset is not None:
                    offset = scope.read_handle(handle, offset=offset, match=needle, max_matches=1000).next_offset

            found = _alternate(reps, search)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for name, took in (("iterate 64 MiB", iterate), ("search 64 MiB", found)):
        print(f"{name}: inline {took['inline']:.1f} ms, ahead {took['ahead']:.1f} ms "
              f"({took['inline'] / took['ahead']:.2f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
