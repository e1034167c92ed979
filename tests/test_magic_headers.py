"""A format is told by its magic number *and* the header fields right after it, for every image and archive format
the shape names: a ``RIFF....WEBP`` start was taken for a WebP image whatever its size field said, ``\\x89PNG``
followed by text for a PNG image, ``\\x1f\\x8b`` followed by anything for gzip -- and such content, told binary,
had its search and jq refused. Each case here is a real header (still told) beside the same magic with a header
that disagrees (no longer told that format)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sqlite3
import struct
import zipfile

import pytest
import zstandard

from scratchfs.api.shape_binary import binary_kind


def _webp(size: int, chunk: bytes = b"VP8L") -> bytes:
    return b"RIFF" + struct.pack("<I", size) + b"WEBP" + chunk + struct.pack("<I", 6) + b"\x2f" + bytes(5)


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", "hello " * 100)
    return buf.getvalue()


def _sqlite(tmp_path) -> bytes:
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("create table t (x)")
    return path.read_bytes()


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + struct.pack(">IIBBBBB", 64, 32, 8, 2, 0, 0, 0) + bytes(200)
ELF = b"\x7fELF\x02\x01\x01" + bytes(57)
REAL = {
    "WebP image": _webp(4 + 8 + 6), "PNG image": PNG, "gzip": gzip.compress(b"x" * 100), "zip": _zip(),
    "zstd": zstandard.ZstdCompressor().compress(b"x" * 100), "xz": lzma.compress(b"x" * 100),
    "bzip2": bz2.compress(b"x" * 100), "PDF": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "ELF": ELF,
    "JPEG image": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(100), "GIF image": b"GIF89a\x10\x00\x10\x00" + bytes(50),
}
DISAGREEING = {
    "WebP image": [_webp(0), _webp(2), _webp(0xFFFFFFFF), _webp(100, b"ABCD")],  # a size no file has; no VP8 chunk
    "PNG image": [b"\x89PNG then some text\n" * 20, b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIDAT" + bytes(100)],
    "gzip": [b"\x1f\x8b\x00" + bytes(100), b"\x1f\x8b\x08\xe0" + bytes(100)],  # not deflate; reserved flags set
    "zip": [b"PK\x03\x04" + b"some text after the letters PK" * 3, b"PK\x03\x04"],
    "zstd": [b"\x28\xb5\x2f\xfd\x08" + bytes(50)],  # the frame header's reserved bit set
    "xz": [b"\xfd7zXZ\x00\x00\x04" + bytes(8), b"\xfd7zXZ\x00\x01\x00" + bytes(8)],  # stream flags' CRC-32 wrong
    "PDF": [b"%PDF is a file format\n" * 10],
    "ELF": [b"\x7fELF\x09\x09\x09" + bytes(57)],
    "JPEG image": [b"\xff\xd8\xff\x00" + bytes(100), b"\xff\xd8\xff"],
    "GIF image": [b"GIF8 of text\n" * 10, b"GIF85a" + bytes(20)],
    "SQLite database": [b"SQLite format 3\x00" + b"\x00\x07" + bytes(90)],  # page size 7: no such database
}


@pytest.mark.parametrize("kind", list(REAL))
def test_a_real_header_is_told(kind):
    assert binary_kind(REAL[kind]) == kind


def test_a_real_sqlite_database_is_told(tmp_path):
    assert binary_kind(_sqlite(tmp_path)) == "SQLite database"


@pytest.mark.parametrize(("kind", "data"), [(kind, data) for kind, cases in DISAGREEING.items() for data in cases],
                         ids=[f"{kind}-{n}" for kind, cases in DISAGREEING.items() for n in range(len(cases))])
def test_a_magic_number_whose_header_disagrees_is_not_that_format(kind, data):
    assert binary_kind(data) != kind, (kind, data[:24])
