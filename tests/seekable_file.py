"""Content written to a seekable-zstd file of small frames and opened for the engine's readers: the setting of the
engine-level search tests (tests/test_patterns.py, tests/test_last_matches.py)."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from scratchfs.engine.seekable import SeekableReader, SeekableWriter, read_seek_table


@contextlib.contextmanager
def seekable_reader(tmp_path: Path, data: bytes, frame_bytes: int = 4096
                    ) -> Iterator[tuple[SeekableReader, Callable[[int], int]]]:
    """``(reader, line_of_frame)`` over ``data`` stored in frames of ``frame_bytes`` (4 KiB: searches and their
    matches span frames); ``line_of_frame(f)`` is the 1-based line frame ``f`` starts in. One new file per call
    (a Hypothesis test shares its tmp_path); closed on exit."""
    path = tmp_path / f"s{uuid.uuid4().hex}.zst"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    writer = SeekableWriter(fd, frame_bytes=frame_bytes, count_lines=True)
    writer.write(data)
    writer.close()
    os.close(fd)
    lines_before = [0]
    for count in writer.frame_newlines:
        lines_before.append(lines_before[-1] + count)
    fd = os.open(path, os.O_RDONLY)
    try:
        yield SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size)), lambda f: lines_before[f] + 1
    finally:
        os.close(fd)
