"""What a binary spill's stub says it is and which calls work (a new user's findings): compressed content names its
format and byte ranges alone (a search finds no text in compressed bytes), an uncompressed tar lists its first
members with where each one's data lies, an image gives its width and height, and jq over JSON that turns into
binary data is refused where it does."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import re
import struct
import tarfile
import zipfile
import zlib

import pytest
import zstandard

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from scratchfs.engine.structure import BytesSource, jq_page
from scratchfs.foundation.limits import MAX_STUB_BYTES

HANDLE = "h_" + "a" * 24
PAYLOAD = b"".join(b"2026-12-04 12:00:%02d INFO request %d served in %d ms\n" % (i % 60, i, i % 97)
                   for i in range(3000))


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("server.log", data)
    return out.getvalue()


def _tar(files: list[tuple[str, bytes]], compress: str = "") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=f"w:{compress}") as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _stub(data: bytes):
    shape = describe(data[:SAMPLE_BYTES], len(data), data.count(b"\n") + (data[-1:] != b"\n"))
    return shape, build_stub(HANDLE, data[:SAMPLE_BYTES], data[-1024:], len(data), data.count(b"\n") + 1,
                             shape.content_type, shape.text, "bash", 1024)


@pytest.mark.parametrize(("name", "compress"), [
    ("gzip", gzip.compress), ("zstd", lambda d: zstandard.ZstdCompressor().compress(d)), ("bzip2", bz2.compress),
    ("xz", lzma.compress), ("zip", _zip)])
def test_compressed_content_names_its_format_and_byte_ranges_alone(name, compress):
    """The stub of compressed content suggested match="TEXT", which finds nothing in compressed bytes (bzip2 and xz
    were not even named); it names the format, says no search finds its text, and names byte ranges alone."""
    shape, stub = _stub(compress(PAYLOAD))
    assert shape.content_type == "binary" and shape.text.startswith("binary, "), shape
    assert f", {name}, compressed" in shape.text, shape
    note = stub.note
    assert f"{name}-compressed" in note and "no search (match=, pattern=) finds text" in note, note
    assert "match=" not in note.split("Next:")[1] and "pattern=" not in note.split("Next:")[1], note
    listed = r' \| read_handle\(handle="h_a+", view="members"\)' if name == "zip" else ""  # (a zip's members, listed)
    assert re.search(r"Next: read_handle\(handle=\"h_a+\", offset=\d+\)" + listed + r"\.$", note), note
    assert len(stub.to_json().encode()) <= MAX_STUB_BYTES


def test_a_gzipped_tar_names_its_first_members():
    files = [(f"src/module_{i}.py", b"print(%d)\n" % i * 40) for i in range(12)]
    shape, _ = _stub(_tar(files, "gz"))
    assert ", gzip, compressed" in shape.text and "a tar inside: src/module_0.py, src/module_1.py" in shape.text


def test_a_zip_names_its_first_members_from_their_local_headers():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(8):
            archive.writestr(f"report/part_{i}.csv", b"a,b\n" * (100 + i))
    shape, _ = _stub(out.getvalue())
    assert ", zip, compressed; members: report/part_0.csv, report/part_1.csv," in shape.text, shape
    assert "report/part_5.csv, …;" in shape.text, shape


def test_a_refused_jq_over_compressed_content_names_no_search(scope):
    handle = scope.spill(gzip.compress(PAYLOAD * 3), source_tool="bash").handle
    with pytest.raises(InvalidArgument) as refused:
        ScratchTools(scope).call("read_handle", {"handle": handle, "jq": "."})
    message = str(refused.value)
    assert "binary data (gzip)" in message and "offset= and length=" in message, message
    assert "no search (match=, pattern=) finds text in its compressed bytes" in message, message


def test_slurp_over_compressed_content_names_byte_ranges_and_no_search(scope):
    handle = scope.spill(bz2.compress(PAYLOAD), source_tool="bash").handle
    with pytest.raises(InvalidArgument, match=r"stored as binary, bzip2-compressed: read its bytes \(offset=, "
                                              r"length=\); no search \(match=, pattern=\) finds text in compressed"):
        ScratchTools(scope).call("read_handle", {"handle": handle, "jq": "length", "slurp": True})


def test_an_uncompressed_tar_lists_its_first_members_and_where_each_ones_data_is(scope):
    """A tar was not recognised (a tar of text files was even "text"); its stub lists the first members, each with
    its size and the offset of its data, so offset= and length= read exactly one member."""
    files = [(f"logs/day_{i:02d}.log", PAYLOAD[: 3000 + 97 * i]) for i in range(40)]
    data = _tar(files)
    shape, stub = _stub(data)
    assert shape.content_type == "binary" and ", tar, 40 members;" in shape.text, shape
    assert len(stub.to_json().encode()) <= MAX_STUB_BYTES
    listed = re.findall(r"^(\S+)  ([\d,]+)  at (\d+)$", stub.preview, re.M)
    assert stub.preview.startswith("tar members (name, bytes, offset of its data):\n") and len(listed) >= 10, stub
    by_name = dict(files)
    for name, size, offset in listed:
        size, offset = int(size.replace(",", "")), int(offset)
        assert data[offset : offset + size] == by_name[name]
    assert f"the preview lists its first {len(listed)} members" in stub.note, stub.note
    assert 'Next: read_handle(handle="h_aaaaaaaaaaaaaaaaaaaaaaaa", offset=512, length=3000, end=3512)' in stub.note, \
        stub.note
    stored = scope.spill(data, source_tool="tar")  # the same through the store's write path
    assert stored.preview == stub.preview and stored.shape == shape.text
    read = ScratchTools(scope).call("read_handle", {"handle": stored.handle, "offset": 512, "length": 3000})
    assert read["offset"] == 512 and read["encoding"] == "text" and read["data"] == files[0][1].decode(), read


def test_a_tar_of_one_large_text_file_is_a_tar_not_text():
    data = _tar([("big.log", PAYLOAD * 30)])
    shape, stub = _stub(data)
    assert shape.content_type == "binary" and ", tar, 1 member in the first 512 KiB;" in shape.text, shape
    assert "big.log  " in stub.preview and f"{len(PAYLOAD) * 30:,}  at 512" in stub.preview, stub.preview


def test_a_tar_listing_of_many_long_names_fits_the_stub():
    files = [("deep/" * 18 + f"name_{i}_" + "x" * 40, b"y") for i in range(200)]
    _, stub = _stub(_tar(files, ""))
    assert len(stub.to_json().encode()) <= MAX_STUB_BYTES and stub.preview.count("\n") >= 3, stub.preview


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    rows = b"".join(b"\x00" + bytes(3 * width) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + bytes(9)
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xda" + random.Random(5).randbytes(3000) + b"\xff\xd9"


def _webp(width: int, height: int) -> bytes:
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes(4) + (width - 1).to_bytes(3, "little") + \
        (height - 1).to_bytes(3, "little")
    body = b"WEBP" + vp8x + random.Random(6).randbytes(2000)
    return b"RIFF" + struct.pack("<I", len(body)) + body


@pytest.mark.parametrize(("data", "named"), [
    (_png(640, 48), "PNG image, 640×48 pixels"), (_jpeg(1920, 1080), "JPEG image, 1920×1080 pixels"),
    (b"GIF89a" + struct.pack("<HH", 320, 200) + random.Random(7).randbytes(900), "GIF image, 320×200 pixels"),
    (_webp(800, 600), "WebP image, 800×600 pixels")])
def test_an_image_shape_gives_its_width_and_height(data, named):
    shape, _ = _stub(data)
    assert shape.content_type == "binary" and shape.text.startswith(f"binary, {len(data) if len(data) < 1024 else ''}")
    assert f", {named};" in shape.text, shape


def test_an_image_whose_header_is_not_one_gives_no_dimensions():
    shape, _ = _stub(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + random.Random(8).randbytes(5000))
    assert ", PNG image;" in shape.text, shape  # (its IHDR holds random sizes: none told)
    shape, _ = _stub(b"\x89PNG\r\n\x1a\n" + random.Random(8).randbytes(5000))
    assert "PNG" not in shape.text, shape  # no IHDR after the signature: no PNG (branch members)


class _Counting(BytesSource):
    """A source that counts the bytes read of it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data, 256 * 1024)
        self.read_bytes = 0

    def read(self, offset: int, length: int) -> bytes:
        data = super().read(offset, length)
        self.read_bytes += len(data)
        return data

    def iter_frames(self, first_frame: int = 0):
        for start, frame in super().iter_frames(first_frame):
            self.read_bytes += len(frame)
            yield start, frame


DOCUMENT = json.dumps({"items": [{"id": i, "name": f"n{i}"} for i in range(400)]}).encode()


@pytest.mark.parametrize(("data", "stops"), [
    (DOCUMENT + b"\n\x1f\x8b\x08\x00" + random.Random(9).randbytes(20 * 2**20),
     f"not valid JSON past byte {len(DOCUMENT):,}, where its JSON value ends (byte 0x1f at byte "
     f"{len(DOCUMENT) + 1:,}"),
    (b'{"items": [1, 2, ' + b"\x00\x00\x01\x02" + random.Random(10).randbytes(20 * 2**20),
     "not valid JSON from byte 17 on, inside its first value (byte 0x00 at byte 17"),
    (b'[{"a": "caf\xe9"}, ' + b"\xc3\xa9\x05" + bytes(20 * 2**20),
     "not valid JSON from byte 16 on, inside its first value (byte 0x05 at byte 18")])
def test_jq_over_json_that_turns_into_binary_data_stops_where_it_does(data, stops):
    """A JSON document followed by binary data (or binary data whose first bytes look like JSON) was read whole,
    decoded and handed to jq (20 MiB: seconds, to jq's time limit) before failing; it is refused at the first
    frame that holds a byte no JSON text holds, naming where its JSON stops and the byte range that holds it."""
    source = _Counting(data)
    with pytest.raises(InvalidArgument) as refused:
        jq_page(source, "keys")
    message = str(refused.value)
    assert message.startswith("the document is not valid JSON") and stops in message, message
    assert "read its JSON by byte range (offset=0, length=" in message, message
    assert source.read_bytes <= 512 * 1024, source.read_bytes  # (one frame past the start, not 20 MiB)


def test_json_with_latin1_bytes_but_no_control_byte_is_still_read_by_jq():
    data = json.dumps({"a": ["caf\xe9"] * 100}).encode("latin-1")
    assert jq_page(BytesSource(data), "keys").items == [["a"]]
