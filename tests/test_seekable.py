"""The Zstandard Seekable Format: our writer against the spec, against zstd's own tools, and against damage."""

from __future__ import annotations

import itertools
import os
import shutil
import struct
import subprocess

import pytest
import xxhash
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.engine.seekable import (
    CHECKSUM_FLAG,
    MAX_FRAME_BYTES,
    SEEKABLE_MAGIC,
    SKIPPABLE_MAGIC,
    FormatError,
    SeekableReader,
    SeekableWriter,
    read_seek_table,
)


def write_blob(path, data: bytes, frame_bytes: int = 4096, pieces: int = 3, pool=None) -> SeekableWriter:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        writer = SeekableWriter(fd, frame_bytes=frame_bytes, count_lines=True, pool=pool)
        step = max(1, len(data) // pieces)
        for start in range(0, len(data), step):
            writer.write(data[start : start + step])
        writer.close()
    finally:
        os.close(fd)
    return writer


def open_reader(path) -> tuple[int, SeekableReader]:
    fd = os.open(path, os.O_RDONLY)
    return fd, SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size))


def test_layout_follows_the_spec(tmp_path, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"][:50_000]
    path = tmp_path / "b.zst"
    writer = write_blob(path, data)
    raw = path.read_bytes()
    count, descriptor, magic = struct.unpack("<IBI", raw[-9:])
    assert magic == SEEKABLE_MAGIC
    assert descriptor == CHECKSUM_FLAG
    assert count == -(-len(data) // 4096) == len(writer.frame_newlines)
    table_len = 8 + 12 * count + 9
    skip_magic, body = struct.unpack("<II", raw[-table_len : -table_len + 8])
    assert (skip_magic, body) == (SKIPPABLE_MAGIC, table_len - 8)
    entries = struct.unpack(f"<{3 * count}I", raw[-table_len + 8 : -9])
    offset = 0
    for i in range(count):
        csize, dsize, checksum = entries[3 * i : 3 * i + 3]
        chunk = data[i * 4096 : (i + 1) * 4096]
        frame = raw[offset : offset + csize]
        params = zstandard.get_frame_parameters(frame)
        assert params.content_size == dsize == len(chunk)
        assert params.has_checksum
        assert checksum == xxhash.xxh64_intdigest(chunk) & 0xFFFFFFFF
        assert zstandard.ZstdDecompressor().decompress(frame) == chunk
        assert writer.frame_newlines[i] == chunk.count(b"\n")
        offset += csize
    assert offset == len(raw) - table_len
    assert writer.size == len(data) and writer.stored_size == len(raw)


@pytest.mark.skipif(shutil.which("zstd") is None, reason="the zstd command-line tool is not installed")
def test_zstd_cli_restores_the_original(tmp_path, fixture_data):
    for name, data in fixture_data.items():
        path = tmp_path / (name + ".zst")
        write_blob(path, data, frame_bytes=64 * 1024)
        out = subprocess.run(["zstd", "-dc", "--no-progress", str(path)], capture_output=True, check=True).stdout
        assert out == data, name


@given(data=st.binary(max_size=40_000), frame_kib=st.integers(4, 16), pieces=st.integers(1, 7),
       ranges=st.lists(st.tuples(st.integers(0, 41_000), st.integers(0, 20_000)), max_size=8))
def test_any_range_equals_the_python_slice(tmp_path_factory, data, frame_kib, pieces, ranges):
    path = tmp_path_factory.mktemp("r") / "b.zst"
    write_blob(path, data, frame_bytes=frame_kib * 1024, pieces=pieces)
    fd, reader = open_reader(path)
    try:
        assert reader.table.size == len(data)
        for offset, length in ranges:
            assert reader.read(offset, length) == data[offset : offset + length]
        assert b"".join(chunk for _, chunk in reader.iter_frames(batch_bytes=5000)) == data
    finally:
        os.close(fd)


def test_empty_content_is_one_empty_frame(tmp_path):
    path = tmp_path / "e.zst"
    write_blob(path, b"")
    fd, reader = open_reader(path)
    try:
        assert reader.table.frames == 1 and reader.table.size == 0
        assert reader.read(0, 10) == b""
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", ["bytearray", "memoryview"])
def test_a_buffer_refilled_after_each_write_is_stored_as_it_was(tmp_path, fixture_data, kind):
    # frames wait in a batch after write() returns: the writer must not keep views of a buffer its caller reuses
    data = b"".join(fixture_data.values())
    buffer = bytearray(64 * 1024)
    path = tmp_path / "r.zst"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        writer = SeekableWriter(fd, frame_bytes=16 * 1024)
        for start in range(0, len(data), len(buffer)):
            n = len(data[start : start + len(buffer)])
            buffer[:n] = data[start : start + n]
            writer.write(buffer[:n] if n < len(buffer) else buffer if kind == "bytearray" else memoryview(buffer))
        writer.close()
    finally:
        os.close(fd)
    fd, reader = open_reader(path)
    try:
        assert reader.read(0, len(data)) == data
    finally:
        os.close(fd)


def damaged(tmp_path, mutate) -> bytes:
    data = b"".join(b"line %d of a log\n" % i for i in range(5000))
    path = tmp_path / "d.zst"
    write_blob(path, data)
    raw = bytearray(path.read_bytes())
    raw = mutate(raw)
    path.write_bytes(bytes(raw))
    return data


@pytest.mark.parametrize("mutate", [
    pytest.param(lambda raw: raw[:-1], id="truncated-by-one"),
    pytest.param(lambda raw: raw[: len(raw) // 2], id="truncated-half"),
    pytest.param(lambda raw: raw + b"junk", id="bytes-appended"),
    pytest.param(lambda raw: raw[:-4] + b"\0\0\0\0", id="seekable-magic"),
    pytest.param(lambda raw: raw[:-5] + bytes([raw[-5] | 0x04]) + raw[-4:], id="reserved-bit"),
    pytest.param(lambda raw: raw[:-9] + struct.pack("<I", 0xFFFFFF) + raw[-5:], id="huge-frame-count"),
    pytest.param(lambda raw: b"", id="empty-file"),
])
def test_damaged_tables_raise_format_error(tmp_path, mutate):
    damaged(tmp_path, mutate)
    fd = os.open(tmp_path / "d.zst", os.O_RDONLY)
    try:
        with pytest.raises(FormatError):
            read_seek_table(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def _flip(raw: bytearray, index: int, bit: int = 0x10) -> bytearray:
    raw[index] ^= bit
    return raw


def _set_entry(raw: bytearray, entry: int, field: int, value: int) -> bytearray:
    count = struct.unpack("<I", raw[-9:-5])[0]
    start = len(raw) - 9 - 12 * count + 12 * entry + 4 * field
    raw[start : start + 4] = struct.pack("<I", value)
    return raw


@pytest.mark.parametrize("mutate", [
    pytest.param(lambda raw: _flip(raw, 200), id="bit-in-frame-0"),
    pytest.param(lambda raw: _flip(raw, 6, 0x01), id="bit-in-frame-header"),
    pytest.param(lambda raw: _set_entry(raw, 0, 2, 12345), id="table-checksum"),
    pytest.param(lambda raw: _set_entry(raw, 0, 1, MAX_FRAME_BYTES + 1), id="huge-decompressed-size"),
    pytest.param(lambda raw: _set_entry(raw, 0, 1, 4095), id="wrong-decompressed-size"),
])
def test_damaged_frames_never_return_wrong_bytes(tmp_path, mutate):
    data = damaged(tmp_path, mutate)
    fd = os.open(tmp_path / "d.zst", os.O_RDONLY)
    try:
        try:
            reader = SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size))
            got = reader.read(0, 4096)
        except FormatError:
            return
        pytest.fail(f"damage went unnoticed; the bytes are {'right' if got == data[:4096] else 'WRONG'}")
    finally:
        os.close(fd)


def test_frame_claiming_a_huge_size_is_refused_before_allocation(tmp_path):
    # a valid frame whose header claims 2 GiB, stitched into a table that claims the same: refused by the limit
    frame = zstandard.ZstdCompressor(write_checksum=True).compress(b"x" * 100)
    header = bytearray(frame)
    path = tmp_path / "h.zst"
    table = struct.pack("<II", SKIPPABLE_MAGIC, 12 + 9) + struct.pack("<III", len(header), 2**31, 0)
    table += struct.pack("<IBI", 1, CHECKSUM_FLAG, SEEKABLE_MAGIC)
    path.write_bytes(bytes(header) + table)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(FormatError, match="more than the limit"):
            read_seek_table(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


@given(data=st.binary(max_size=60_000).map(lambda b: b.replace(b"\x00", b"\n")), frame_kib=st.integers(4, 8),
       pieces=st.integers(1, 9))
def test_frames_and_line_counts_equal_plain_python_slices(tmp_path_factory, data, frame_kib, pieces):
    # up to 15 frames: more than the writer keeps in flight on 2 cores, so frames come back from the workers in batches
    frame = frame_kib * 1024
    writer = write_blob(tmp_path_factory.mktemp("f") / "b.zst", data, frame_bytes=frame, pieces=pieces)
    slices = [data[i : i + frame] for i in range(0, len(data), frame)] or [b""]
    assert writer.frames == len(slices) and writer.size == len(data)
    assert list(writer.frame_newlines) == [s.count(b"\n") for s in slices]


def _wait_until(condition, seconds: float = 10.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def _stacks(pool) -> str:
    """What the threads of the process are doing (a failure's message)."""
    import gc
    import sys
    import threading
    import traceback

    gc.disable()  # (a collection inside it that frees a threading.local deadlocks on CPython 3.11: test_mcp_give_up)
    try:
        frames = sys._current_frames()
    finally:
        gc.enable()
    threads = list(threading.enumerate())  # all of them: another thread may hold the GIL
    return f"alive={pool.alive} queued={pool.queued} " + " | ".join(
        f"{t.name}: {''.join(traceback.format_stack(frames[t.ident])[-3:])}" for t in threads if t.ident in frames)


@pytest.fixture
def quick_idle():
    """A pool of frame workers of the test's own (the process's is shared with whatever else runs), ending after
    0.2 s without work (2 s in use), so that a test can see them end."""
    from scratchfs.engine.frame_pool import FramePool

    return FramePool(idle_seconds=0.2)


# (neither this test nor the next is marked alone: no bound of time, only the workers' end awaited up to 10-30 s)
def test_a_large_write_keeps_frame_order_and_its_workers_end_when_idle(tmp_path, fixture_data, quick_idle):
    data = b"".join(fixture_data.values())  # about 2 MiB: 512 frames of 4 KiB, compressed on worker threads
    path = tmp_path / "big.zst"
    writer = write_blob(path, data, frame_bytes=4096, pieces=5, pool=quick_idle)
    assert 1 <= quick_idle.alive <= quick_idle.workers  # kept for the writes to come, at most one per core
    assert list(writer.frame_newlines) == [data[i : i + 4096].count(b"\n") for i in range(0, len(data), 4096)]
    fd, reader = open_reader(path)
    try:
        assert [chunk for _, chunk in reader.iter_frames()] == [data[i : i + 4096] for i in range(0, len(data), 4096)]
    finally:
        os.close(fd)
    assert _wait_until(lambda: quick_idle.alive == 0)  # idle: no thread of ours left
    again = write_blob(tmp_path / "again.zst", data, frame_bytes=4096, pieces=2, pool=quick_idle)  # started again
    assert again.digest() == writer.digest()


def test_a_large_write_abandoned_midway_leaves_no_worker_thread(tmp_path, fixture_data, quick_idle):
    # a content stream that fails after several frames: the writer is dropped without close(); its frames not yet
    # started are cancelled, and the workers end once idle
    import gc

    data = b"".join(fixture_data.values())
    fd = os.open(tmp_path / "a.zst", os.O_WRONLY | os.O_CREAT)
    try:
        writer = SeekableWriter(fd, frame_bytes=4096, count_lines=True, pool=quick_idle)
        writer.write(data[: 64 * 1024])  # 16 frames: the workers are running
        assert quick_idle.alive
        del writer
        gc.collect()
        assert _wait_until(lambda: quick_idle.alive == 0, 30), _stacks(quick_idle)  # (in 0.2 s but on a busy machine)
    finally:
        os.close(fd)


@given(data=st.binary(min_size=1, max_size=4_000).map(lambda b: b.replace(b"\x00", b"\n")), repeat=st.integers(1, 40),
       cuts=st.lists(st.integers(0, 160_000), max_size=12), kinds=st.lists(st.sampled_from("bam"), min_size=1))
def test_any_chunking_across_the_worker_threads_decodes_to_the_input(tmp_path_factory, data, repeat, cuts, kinds):
    # chunks of any sizes (empty ones, ones smaller than a frame, ones spanning many frames) and types, up to ~40
    # frames of 4 KiB: the frames cross the hand-off to the worker threads and back, in batches; zstd itself (all
    # frames in one stream, the seek table skipped) and the reader must both give the input back
    content = (data * repeat)[:160_000]
    bounds = sorted({0, len(content), *(c for c in cuts if c < len(content))})
    path = tmp_path_factory.mktemp("c") / "b.zst"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        writer = SeekableWriter(fd, frame_bytes=4096, count_lines=True)
        for i, (start, end) in enumerate(itertools.pairwise(bounds)):
            piece = content[start:end]
            kind = kinds[i % len(kinds)]
            writer.write(piece if kind == "b" else bytearray(piece) if kind == "a" else memoryview(piece))
        writer.close()
    finally:
        os.close(fd)
    slices = [content[i : i + 4096] for i in range(0, len(content), 4096)]
    assert list(writer.frame_newlines) == [s.count(b"\n") for s in slices]
    raw = path.read_bytes()
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    assert reader.read() == content
    fd, seekable = open_reader(path)
    try:
        assert [chunk for _, chunk in seekable.iter_frames()] == slices
        assert seekable.read(len(content) // 3, 10_000) == content[len(content) // 3 : len(content) // 3 + 10_000]
    finally:
        os.close(fd)


def test_a_frame_that_failed_on_a_worker_is_raised_again_by_a_later_write_or_close(tmp_path, fixture_data,
                                                                                    monkeypatch):
    # a frame that fails to compress on a worker: the calling thread raises it, and a later write() or close()
    # raises it again instead of writing a blob with a frame missing
    from scratchfs.engine import seekable

    calls = []
    compress = seekable._compress_frame

    def failing(*args):
        calls.append(1)
        if len(calls) == 2:
            raise zstandard.ZstdError("simulated")
        return compress(*args)

    monkeypatch.setattr(seekable, "_compress_frame", failing)
    data = b"".join(fixture_data.values())[: 400 * 1024]
    path = tmp_path / "e.zst"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        writer = SeekableWriter(fd, frame_bytes=4096)
        with pytest.raises(zstandard.ZstdError, match="simulated"):
            writer.write(data)  # 100 frames: more than the writer keeps in flight, so write() waits for the workers
        with pytest.raises(zstandard.ZstdError, match="simulated"):
            writer.write(b"more")
        with pytest.raises(zstandard.ZstdError, match="simulated"):
            writer.close()
        assert not writer.closed
    finally:
        os.close(fd)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(FormatError):  # no seek table was written
            read_seek_table(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def test_a_large_write_completes_in_its_own_thread_when_no_worker_can_start(tmp_path, fixture_data, quick_idle,
                                                                             monkeypatch):
    import threading

    def refuse(self):
        raise RuntimeError("can't start new thread")  # a process at its thread limit

    data = b"".join(fixture_data.values())[: 1024 * 1024]
    monkeypatch.setattr(threading.Thread, "start", refuse)
    writer = write_blob(tmp_path / "alone.zst", data, frame_bytes=4096, pieces=3, pool=quick_idle)
    monkeypatch.undo()
    assert quick_idle.alive == 0 and writer.size == len(data)
    fd, reader = open_reader(tmp_path / "alone.zst")
    try:
        assert b"".join(chunk for _, chunk in reader.iter_frames()) == data
    finally:
        os.close(fd)


def test_a_writer_refused_at_creation_leaves_nothing_to_clean_up():
    import gc
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="outside"):
            SeekableWriter(bytearray(), frame_bytes=1)
        gc.collect()  # its __del__ ran on a half-made object: no "Exception ignored" either


@pytest.mark.parametrize(("offset", "length"), [(-1, 10), (-5000, 3), (0, -1)])
def test_a_negative_offset_or_length_is_the_callers_fault_never_a_damaged_frame(tmp_path, offset, length):
    """A read at byte -1 looked up frame -1 and failed as 'frame -1 header is damaged' (a FormatError, which the
    store reports as CorruptBlob: a blob said damaged for a caller's bad argument)."""
    path = tmp_path / "b.zst"
    write_blob(path, bytes(range(256)) * 64)
    fd, reader = open_reader(path)
    try:
        with pytest.raises(ValueError, match="at least 0"):
            reader.read(offset, length)
        assert reader.read(0, 5) == bytes(range(5))
    finally:
        os.close(fd)
