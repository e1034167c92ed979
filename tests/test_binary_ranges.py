"""Byte-range reads of content classed binary whose range is text (a tar member read by the offset= and length= its
stub names came back as a hex dump, 4.8 times its bytes), and a zip whose members are stored uncompressed (it was
called compressed, its note offering byte ranges alone)."""

from __future__ import annotations

import io
import json
import os
import random
import re
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools, to_json
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from scratchfs.foundation.limits import MAX_STUB_BYTES

HANDLE = "h_" + "a" * 24
JSONL = b"".join(b'{"id": %d, "name": "item \\"%d\\"", "tags": ["a\tb"], "city": "K\xc3\xb6ln \xe6\x9d\xb1"}\n' % (i, i)
                 for i in range(200))
CSV = b"".join(b"%d,caf\xc3\xa9 %d,\"quoted, cell\"\r\n" % (i, i * 7) for i in range(300))


def _tar(files: list[tuple[str, bytes]], padded: bool = True) -> bytes:
    """A tar of ``files``; not ``padded``: without the zeros after its end blocks that fill its last 10 KiB record
    (a reader stops at the end blocks)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:") as archive:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        end = archive.offset + 2 * tarfile.BLOCKSIZE
    return out.getvalue() if padded else out.getvalue()[:end]


def _hex_bytes(reply: dict) -> bytes:
    return b"".join(bytes.fromhex(line[10:57]) for line in reply["data"].split("\n") if line)


def _shown(reply: dict) -> bytes:
    return _hex_bytes(reply) if reply.get("encoding") == "hexdump" else reply["data"].encode()


def _call_of(text: str) -> dict:
    import ast

    node = ast.parse(text, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def _members(preview: str) -> list[tuple[str, int, int]]:
    return [(name, int(size.replace(",", "")), int(at))
            for name, size, at in re.findall(r"^(\S+)  ([\d,]+)  at (\d+)$", preview, re.M)]


def test_a_tar_member_of_text_read_by_its_offset_and_length_comes_back_as_text(scratch_scope):
    """The stub's offset= and length= of a JSON-lines member gave 8,163 bytes of hex dump for 1,520 bytes of it; the
    member comes back as the text a range read of text gives (JSON escapes, whole characters), saying so."""
    data = _tar([("a.jsonl", JSONL), ("b.csv", CSV), ("c.bin", bytes(range(256)) * 8)])
    stub = scratch_scope.spill(data, source_tool="tar")
    tools = ScratchTools(scratch_scope)
    members = _members(stub.preview)
    assert [name for name, _, _ in members] == ["a.jsonl", "b.csv", "c.bin"], stub.preview
    for name, size, at in members[:2]:
        reply = tools.call("read_handle", {"handle": stub.handle, "offset": at, "length": size, "budget": 65536})
        assert reply["encoding"] == "text" and reply["offset"] == at and reply["length"] == size, reply
        assert reply["data"].encode() == data[at : at + size] == (JSONL if name == "a.jsonl" else CSV)
        assert "replaced" not in reply
        text_read = tools.call("read_handle", {"handle": scratch_scope.spill(JSONL if name == "a.jsonl" else CSV,
                                                                             source_tool="x").handle,
                                               "length": size, "budget": 65536})
        assert {k: v for k, v in reply.items() if k not in ("handle", "encoding", "next_call", "offset", "size",
                                                               "next_offset", "remaining")} == {
            k: v for k, v in text_read.items() if k not in ("handle", "next_call", "offset", "size", "next_offset",
                                                            "remaining")}
    name, size, at = members[2]  # a member of bytes that are no text: a hex dump, as before
    reply = tools.call("read_handle", {"handle": stub.handle, "offset": at, "length": 256})
    assert reply["encoding"] == "hexdump" and _hex_bytes(reply) == data[at : at + 256]


def test_a_text_range_of_binary_content_costs_about_its_bytes_not_five_times_them(scratch_scope):
    data = _tar([("a.jsonl", JSONL)])
    handle = scratch_scope.spill(data, source_tool="tar").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": 512, "length": 4096})
    assert reply["encoding"] == "text" and reply["length"] >= 4096 * 0.85, reply["length"]  # (its escapes cost)
    assert len(to_json(reply).encode()) <= 8192


@pytest.mark.parametrize("cut", [1, 2])
def test_a_text_range_cut_inside_a_character_at_its_end_is_text_of_whole_characters(scratch_scope, cut):
    member = "日本語のテキスト\n".encode() * 40
    data = _tar([("ja.txt", member)])
    handle = scratch_scope.spill(data, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    reply = tools.call("read_handle", {"handle": handle, "offset": 512, "length": 100 + cut})
    assert reply["encoding"] == "text" and reply["offset"] == 512, reply
    assert reply["data"].encode() == data[512 : 512 + reply["length"]], reply
    assert reply["length"] == 100 and reply["next_offset"] == 612  # (before the character its end cuts)


@pytest.mark.parametrize("cut", [1, 2])
def test_a_range_of_binary_content_starting_inside_a_character_is_a_hex_dump_of_exactly_its_bytes(scratch_scope,
                                                                                                  cut):
    """It was text from the next character on (offset moved past the cut one): after a hex dump that ends inside a
    character (as it now may: exactly the bytes asked), the bytes between were shown by neither range."""
    member = "日本語のテキスト\n".encode() * 40
    data = _tar([("ja.txt", member)])
    handle = scratch_scope.spill(data, source_tool="tar").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": 512 + cut, "length": 100})
    assert reply["encoding"] == "hexdump" and reply["offset"] == 512 + cut and reply["length"] == 100, reply
    assert _hex_bytes(reply) == data[512 + cut : 612 + cut] and reply["next_offset"] == 612 + cut


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), size=st.integers(64, 4000), offset=st.integers(0, 4000),
       length=st.integers(1, 1200), lead=st.sampled_from([None, 0xC3, 0xE6, 0xF0]))
def test_a_hex_dump_range_is_exactly_the_bytes_asked(scratch_scope, seed, size, offset, length, lead):
    """A hex dump has no character boundaries: ``length=64`` of random binary gave 63 bytes when its last byte was
    a UTF-8 lead byte (left for the next range). The hex decodes to ``data[offset:offset+length]``."""
    data = bytearray(b"\x00\x01\x02" + random.Random(seed).randbytes(size))  # (binary by its NULs)
    offset = min(offset, len(data) - 2)
    if lead is not None and offset + length < len(data):  # the range's last byte starts a character
        data[offset + length - 1] = lead
    data = bytes(data)
    handle = scratch_scope.spill(data, source_tool="t").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": offset, "length": length})
    if reply.get("encoding") != "hexdump":
        return  # (a range of bytes that are text: shown as text)
    end = min(offset + length, len(data))
    assert reply["offset"] == offset and reply["length"] == end - offset, reply
    assert _hex_bytes(reply) == data[offset:end]
    assert reply["next_offset"] == (end if end < len(data) else None)


@pytest.mark.parametrize("raw", [b"abc\x00def" * 20, b"abc\x1b[31mred" * 20, b"\x01\x02\x03" * 20,
                                 b"ok \xff\xfe bytes" * 20, b"text then \x7f" * 20])
def test_a_range_that_is_not_clean_text_stays_a_hex_dump(scratch_scope, raw):
    data = _tar([("x", raw)])
    handle = scratch_scope.spill(data, source_tool="tar").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": 512, "length": len(raw)})
    assert reply["encoding"] == "hexdump" and _hex_bytes(reply) == raw


_PARTS = st.lists(st.one_of(
    st.text(alphabet=st.sampled_from('ab \n\t"\\é日😀'), min_size=1, max_size=600).map(str.encode),
    st.binary(min_size=1, max_size=300)), min_size=1, max_size=6)


MOST_CALLS = None if os.environ.get("SCRATCHFS_STRESS") else 150
"""Most calls a walk of the property test below makes (its length raised to fit; any length with
``SCRATCHFS_STRESS=1``): a length of 1 to 60 walked 9 KiB of tar in up to 9,000 calls, ~2 ms each; one run of the
suite spent 104 s in that test, another 38 s. The short lengths' walks over chosen boundaries are
:func:`test_a_walk_of_one_to_four_bytes_a_call_over_text_and_binary_boundaries_shows_every_byte_once`."""


def _walk(tools: ScratchTools, handle: str, data: bytes, offset: int, length: int, budget: int) -> int:
    """Follow next_call from ``offset`` to the end of ``data`` (spilled as ``handle``) reading ``length`` bytes a call
    within ``budget``, checking each reply; returns the number of calls. Text pieces are text (exactly their bytes, no
    control byte but tab, newline, CR), the rest hex dumps; every byte is shown once."""
    call = {"handle": handle, "offset": offset, "length": length, "budget": budget}
    covered, calls = None, 0
    while call is not None:
        reply = tools.call("read_handle", call)
        calls += 1
        assert len(to_json(reply).encode()) <= budget
        assert reply["encoding"] in ("text", "hexdump"), reply
        if covered is None:
            assert 0 <= reply["offset"] - offset <= (0 if reply["encoding"] == "hexdump" else 3)
            covered = reply["offset"]
        assert reply["offset"] == covered, "a byte skipped or returned twice"
        shown = _shown(reply)
        assert shown == data[reply["offset"] : reply["offset"] + reply["length"]]
        if reply["encoding"] == "text":
            assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", reply["data"]), reply
        covered += reply["length"]
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    assert covered == len(data)
    return calls


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=_PARTS, offset=st.integers(0, 6000), length=st.integers(1, 3000),
       budget=st.sampled_from([2048, 3000, 8192]))
def test_following_next_call_over_binary_content_shows_every_byte_once_within_budget(scratch_scope, parts, offset,
                                                                                     length, budget):
    """Text pieces are text (exactly their bytes, no control byte but tab, newline, CR), the rest hex dumps;
    following next_call from any offset gives every byte once, each reply within its budget. (The tar is not padded
    to its 10 KiB record: with a length of a few bytes those zeros were most of the test's 90,000 calls, 20 s. A
    length that would take more than MOST_CALLS calls to the end is raised to take that many.)"""
    data = _tar([(f"m{i}", part) for i, part in enumerate(parts)], padded=False)
    handle = scratch_scope.spill(data, source_tool="tar").handle
    offset = min(offset, len(data) - 1)
    if MOST_CALLS is not None:
        length = max(length, -(-(len(data) - offset) // MOST_CALLS))
    _walk(ScratchTools(scratch_scope), handle, data, offset, length, budget)


BOUNDARIES = (b"\x00\x01" + "ab é日😀\t\r\n\"\\".encode() + b"\xff\xfe\x80" + "日😀x".encode() + b"\x7f\x1b[31m"
              + "é\u0085z".encode() + b"\x00" + "😀".encode() + b"\xf0\x9f" + "end é".encode())
"""Binary content whose text and bytes meet at every kind of boundary: text after bytes and before them, characters of
2, 3 and 4 bytes at both ends of a text piece and cut off (a lead byte before bytes, a lead byte at the end), C0 and
C1 controls (U+0085 is valid UTF-8, not clean text), a tab, CR and newline, quotes and backslashes."""


@pytest.mark.parametrize("length", [1, 2, 3, 4])
def test_a_walk_of_one_to_four_bytes_a_call_over_text_and_binary_boundaries_shows_every_byte_once(scratch_scope,
                                                                                                  length):
    """A call of a few bytes meets each boundary at every alignment (a walk from each offset below ``length``):
    following next_call gives every byte once, text as text (whole characters: a text piece starts at most 3 bytes
    past the offset asked, no control byte but tab, newline, CR) and the rest hex dumps -- what a walk of a tar a byte
    a call showed, in 2,048 calls or more a walk."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(BOUNDARIES, source_tool="t").handle
    calls = [_walk(tools, handle, BOUNDARIES, offset, length, 2048) for offset in range(length)]
    assert all(count >= (len(BOUNDARIES) - length) // (length + 3) for count in calls), calls


def test_a_json_member_of_a_tar_is_not_offered_a_structure_read(scratch_scope):
    """A structure read (jq=, row=) reads a whole entry, never a range of one: neither the stub nor a range read of
    a member nor the refusal of a jq read offers one."""
    data = _tar([("a.jsonl", JSONL), ("b.csv", CSV)])
    stub = scratch_scope.spill(data, source_tool="tar")
    tools = ScratchTools(scratch_scope)
    assert not re.search(r"jq=|row=|record=|slurp", stub.note), stub.note
    reply = tools.call("read_handle", {"handle": stub.handle, "offset": 512, "length": 400})
    assert not re.search(r"jq=|row=|record=", json.dumps(reply)), reply
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": stub.handle, "jq": "."})
    said = str(refused.value)
    assert "offset= and length=" in said and not re.search(r"read it with .*jq=", said), said


# -- zip ------------------------------------------------------------------------------------------------------------


def _zip(files: list[tuple[str, bytes, int]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data, method in files:
            archive.writestr(zipfile.ZipInfo(name, (2026, 12, 4, 12, 0, 0)), data, compress_type=method)
    return out.getvalue()


def _stub(data: bytes):
    shape = describe(data[:SAMPLE_BYTES], len(data), data.count(b"\n") + (data[-1:] != b"\n"))
    return shape, build_stub(HANDLE, data[:SAMPLE_BYTES], data[-1024:], len(data), data.count(b"\n") + 1,
                             shape.content_type, shape.text, "zip", 1024)


def test_a_zip_of_stored_members_is_an_archive_whose_members_read_by_offset_and_length(scratch_scope):
    """A zip whose members are stored (method 0) was "zip, compressed", its note offering byte ranges alone "because
    compressed"; it is an archive of stored members, listed as a tar's are, each read by its offset= and length=."""
    files = [(f"logs/part_{i}.log", b"".join(JSONL.splitlines(True)[: 30 + i]), zipfile.ZIP_STORED) for i in range(5)]
    data = _zip(files)
    shape, stub = _stub(data)
    assert ", compressed" not in shape.text and ", zip, 5 members stored (uncompressed);" in shape.text, shape
    assert "no search" not in stub.note and "-compressed" not in stub.note and "match=" in stub.note, stub.note
    assert "a zip archive" in stub.note and len(stub.to_json().encode()) <= MAX_STUB_BYTES, stub.note
    listed = _members(stub.preview)
    assert stub.preview.startswith("zip members (name, bytes, offset of its data):\n"), stub.preview
    assert [(name, size) for name, size, _ in listed] == [(name, len(body)) for name, body, _ in files]
    for (_, size, at), (_, body, _) in zip(listed, files, strict=True):
        assert data[at : at + size] == body
    assert (f"Next: read_handle(handle=\"{HANDLE}\", offset={listed[0][2]}, length={listed[0][1]}, "
            f"end={listed[0][2] + listed[0][1]})") in stub.note
    stored = scratch_scope.spill(data, source_tool="zip")
    assert stored.preview == stub.preview and stored.shape == shape.text
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stored.handle, "offset": listed[0][2],
                                                             "length": listed[0][1]})
    assert reply["encoding"] == "text" and reply["data"].encode() == files[0][1]
    found = ScratchTools(scratch_scope).call("read_handle", {"handle": stored.handle, "match": "item \\\"7\\\""})
    assert found["windows"], found  # (stored bytes are the text: a search finds it)


def test_a_zip_of_stored_and_compressed_members_lists_the_stored_and_names_the_rest(scratch_scope):
    files = [("mimetype", b"application/epub+zip", zipfile.ZIP_STORED),
             ("big.log", JSONL * 3, zipfile.ZIP_DEFLATED), ("notes.txt", CSV[:2000], zipfile.ZIP_STORED)]
    data = _zip(files)
    shape, stub = _stub(data)
    assert ", zip, 2 of 3 members stored (uncompressed), 1 compressed;" in shape.text, shape
    listed = _members(stub.preview)
    assert [name for name, _, _ in listed] == ["mimetype", "notes.txt"], stub.preview
    for name, size, at in listed:
        assert data[at : at + size] == {n: b for n, b, _ in files}[name]
    assert "match=" in stub.note and "compressed" in stub.note, stub.note
    refused = None
    try:
        ScratchTools(scratch_scope).call("read_handle", {"handle": scratch_scope.spill(data).handle, "jq": "."})
    except InvalidArgument as exc:
        refused = str(exc)
    assert refused is not None and "no search (match=, pattern=) finds text" not in refused, refused


def test_a_zip_of_compressed_members_is_still_compressed():
    shape, stub = _stub(_zip([(f"p{i}.log", JSONL, zipfile.ZIP_DEFLATED) for i in range(3)]))
    assert ", zip, compressed; members: p0.log, p1.log, p2.log;" in shape.text, shape
    assert "zip-compressed" in stub.note and "match=" not in stub.note.split("Next:")[1], stub.note


def test_lines_of_a_tar_member_of_text_come_back_as_text(scratch_scope):
    data = _tar([("a.jsonl", JSONL)])
    handle = scratch_scope.spill(data, source_tool="tar").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": 512, "lines": 3})
    assert reply["encoding"] == "text" and reply["data"].encode() == b"".join(JSONL.splitlines(True)[:3]), reply
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "line": 1, "lines": 1})
    assert reply["encoding"] == "hexdump", reply  # (the header's NUL bytes)
