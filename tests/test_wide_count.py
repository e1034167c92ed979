"""A spill of UTF-16 text counts its stub's ``lines`` as it streams (:mod:`scratchfs.api.wide_count`): its newline
code units at even offsets, as the line reads' ``total_lines`` count them. Up to 64 MiB the stub read the whole
blob back to count them; past that it counted ``0a`` bytes (``上`` is ``0a 4e``): 20,000,001 lines for 10,000,000."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.wide_count import WideCount

_TEXT = "".join(f"{n} 上海\u0d0a\U0001000a{'a' * (n % 7)}\r\n" for n in range(3000)) + "tail 上"


@pytest.mark.parametrize(("codec", "bom", "encoding"), [
    ("utf-16-le", b"\xff\xfe", "utf-16le"), ("utf-16-be", b"\xfe\xff", "utf-16be"),
    ("utf-16-le", b"", "utf-16le")])
@pytest.mark.parametrize("chunk", [3, 4097, 1 << 20])
def test_stub_lines_are_the_line_reads_total_lines(scratch_store_factory, codec, bom, encoding, chunk):
    """Chunks of odd sizes (a code unit split across two), with and without a byte order mark."""
    text = ("ascii line\r\n" * 400 if not bom else "") + _TEXT  # (no mark: told by a head of ASCII in UTF-16)
    raw = bom + text.encode(codec)
    tools = ScratchTools(scratch_store_factory(frame_bytes=4096).scope("r", "a"))
    stub = tools.scope.spill((raw[at : at + chunk] for at in range(0, len(raw), chunk)), source_tool="t")
    assert stub.shape.split(";")[0].split(", ")[2] == ("UTF-16LE text" if encoding == "utf-16le" else "UTF-16BE text")
    last = tools.read_handle(stub.handle, line=-1, encoding=encoding)
    assert stub.lines == last["total_lines"] == text.count("\n") + 1


def test_past_64_mib_the_stub_counts_newline_code_units(scratch_store_factory):
    """65 MiB of UTF-16LE text (two ``0a`` bytes a line: ``上`` is ``0a 4e``), in chunks of 1 MiB and a byte."""
    lines = (65 << 20) // 12
    raw = memoryview(b"\xff\xfe" + "上海 x\r\n".encode("utf-16-le") * lines + "end".encode("utf-16-le"))
    step = (1 << 20) + 1
    stub = scratch_store_factory().scope("r", "a").spill((raw[at : at + step] for at in range(0, len(raw), step)),
                                                         source_tool="t")
    assert stub.lines == lines + 1


@pytest.mark.parametrize("head", [b"", b"x", b"{\"a\": 1}\n" * 600, "é\n".encode() * 3000,
                                  b"\xff\xfe\x00\x00" + "a\n".encode("utf-32-le") * 100, bytes(range(256)) * 20])
def test_other_content_is_not_counted(head):
    """UTF-8 text, JSON, UTF-32 (its mark starts with UTF-16LE's) and binary data get no count."""
    assert WideCount.start(head) is None
