"""zstd's failure to allocate is memory, not damage: under an address-space limit (tests/test_resource_limits.py,
where a spill ended in a ``ZstdError`` traceback once fewer modules were loaded before the limit) zstd says
"Allocation error : not enough memory"; a frame it could not decompress for that reason was reported a damaged
frame (FormatError, the CLI's "corrupt" exit 3) and a compression's failure escaped untyped. Both are MemoryError
now (the CLI's one line "out of memory", exit 4)."""

from __future__ import annotations

import os

import pytest
import zstandard

from scratchfs.engine import seekable, zstd_contexts
from tests.test_seekable import open_reader, write_blob

ALLOCATION = "cannot decompress: Allocation error : not enough memory"


class _Failing:
    def __init__(self, message: str) -> None:
        self.message = message

    def decompress(self, raw):
        raise zstandard.ZstdError(self.message)

    def compress(self, data):
        raise zstandard.ZstdError(self.message)


def test_an_allocation_failure_is_told_apart_from_other_zstd_errors():
    assert zstd_contexts.out_of_memory(zstandard.ZstdError(ALLOCATION))
    assert not zstd_contexts.out_of_memory(zstandard.ZstdError("cannot decompress: Data corruption detected"))


@pytest.mark.parametrize(("message", "raised"), [(ALLOCATION, MemoryError),
                                                 ("cannot compress: Src size is incorrect", zstandard.ZstdError)])
def test_a_compression_that_could_not_allocate_is_a_memory_error(monkeypatch, message, raised):
    monkeypatch.setattr(zstd_contexts, "compressor", lambda level, frame_bytes: _Failing(message))
    with pytest.raises(raised):
        zstd_contexts.compress(3, 1 << 17, b"x" * 1000)


@pytest.mark.parametrize(("message", "raised"), [(ALLOCATION, MemoryError),
                                                 ("cannot decompress: Data corruption detected", seekable.FormatError)])
def test_a_frame_that_could_not_be_decompressed_for_memory_is_not_said_damaged(tmp_path, monkeypatch, message,
                                                                                raised):
    write_blob(tmp_path / "b.zst", b"line of text\n" * 20_000)
    fd, reader = open_reader(tmp_path / "b.zst")
    try:
        monkeypatch.setattr(seekable, "decompressor", lambda: _Failing(message))
        with pytest.raises(raised):
            reader.read(0, 100)
    finally:
        os.close(fd)
