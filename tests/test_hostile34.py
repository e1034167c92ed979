"""Hostile inputs to this session's new reads (helper hostile34): each test failed before its fix."""

from __future__ import annotations

import bisect
import io
import random
import re
import struct
import zipfile

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.engine.structure.paging import BytesSource
from scratchfs.engine.structure.table import iter_rows, rows_at
from scratchfs.web.security import allowed_host, host_problem
from tests.archives import call_args

_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_END = struct.Struct("<4sHHHHIIH")


def _zip_with_a_lying_entry() -> tuple[bytes, int, int]:
    """A stored zip of two text members whose central directory names a third member, its local header inside the
    first member's data (no header there); and the first member's data range."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", b"".join(b"alpha %d\n" % i for i in range(50)))
        archive.writestr("b.txt", b"".join(b"beta %d\n" % i for i in range(50)))
    raw = out.getvalue()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        first = archive.infolist()[0]
    start = first.header_offset + 30 + len(first.filename)
    at = raw.rfind(b"PK\x05\x06")
    sig, _, _, count, total, cd_size, cd_offset, _ = _END.unpack_from(raw, at)
    lie = _CENTRAL.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 10, 10, 4, 0, 0, 0, 0, 0, start + 40) + b"lie!"
    directory = raw[cd_offset : cd_offset + cd_size] + lie
    return (raw[:cd_offset] + directory + _END.pack(sig, 0, 0, count + 1, total + 1, len(directory), cd_offset, 0),
            start, first.compress_size)


def test_a_zip_member_s_last_lines_when_the_directory_names_a_header_inside_its_data(scratch_scope):
    """A central directory naming a local header inside a member's data (none there): the last lines before a byte
    of that member's data past it are that member's; they were refused as 'in no member's data'."""
    raw, start, length = _zip_with_a_lying_entry()
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    tools = ScratchTools(scratch_scope)
    for end in (start + 200, start + length):
        reply = tools.call("read_handle", {"handle": handle, "line": -3, "end": end})
        assert reply["offset"] + reply["length"] == end and reply["offset"] >= start, reply
        pages = [reply]
        while pages[-1]["next_call"]:
            pages.append(tools.call("read_handle", call_args(pages[-1]["next_call"])))
        assert b"".join(raw[p["offset"] : p["offset"] + p["length"]] for p in pages[::-1]) == raw[start:end]


class _Counted(BytesSource):
    """A content whose reads count the bytes they return."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data, frame_bytes=64 * 1024)
        self.bytes_read = 0

    def read(self, offset: int, length: int) -> bytes:
        got = super().read(offset, length)
        self.bytes_read += len(got)
        return got

    def iter_frames(self, first_frame: int = 0):  # (BytesSource.s)
        for start, frame in super().iter_frames(first_frame):
            self.bytes_read += len(frame)
            yield start, frame


def test_rows_at_reads_a_cell_of_many_matches_a_few_times_not_once_for_each():
    """A search from the end (before=) of a CSV whose one cell holds 60,000 lines, max_matches=1000: each match's
    row was found by parsing the table from the start of that cell to the match, once for each match (12 s for a
    cell of 1.9 MB); the matches after the first in a row are that row's with no parse."""
    cell = "".join(f"needle line {i}, with, commas\n" for i in range(60_000))
    data = ('a,b\n1,"' + cell + '"\n' + "2,x\n" * 10).encode()
    offsets = [at for at in range(len(data) - 200_000, len(data)) if data.startswith(b"needle", at)][-1000:]
    source = _Counted(data)
    assert rows_at(source, offsets) == [1] * len(offsets)
    assert source.bytes_read < 5 * len(data), source.bytes_read


def test_rows_at_a_byte_of_the_byte_order_mark_is_the_first_row_s():
    """A byte inside the UTF-8 byte order mark (offset 1 or 2) was numbered row -1 (no row starts before it in the
    content cut after it), which a rows read takes as the last row."""
    data = "\ufeffname,value\nn0,0\nn1,1\n".encode()
    assert rows_at(BytesSource(data, frame_bytes=8), [0, 1, 2, 3, 15]) == [0, 0, 0, 0, 1]
    assert rows_at(BytesSource(data, frame_bytes=8), [2]) == [0]
    assert rows_at(BytesSource(data, frame_bytes=8), [1, 20], headed=False) == [1, 3]


def _hostile_csv(seed: int) -> bytes:
    """A small CSV with multi-line cells, stray and unclosed quotes, blank lines, CRLF, a byte order mark or a
    ``sep=`` line, by ``seed``."""
    rnd = random.Random(seed)
    lines = [] if rnd.random() < 0.3 else ["name,value,desc"]
    for i in range(rnd.randint(1, 30)):
        desc = rnd.choice([f"Zq{i}Q", f"Zq{i}Q", f'"line one Zq{i}Q\nline two\n\nline four"', f'x "Zq{i}Q" y',
                           f'"unclosed Zq{i}Q'])
        lines += [f"n{i},{i},{desc}"] + [""] * (rnd.random() < 0.15)
    end = "\r\n" if rnd.random() < 0.3 else "\n"
    text = end.join(lines) + end * (rnd.random() < 0.7)
    text = ("\ufeff" if rnd.random() < 0.2 else "") + ("sep=,\n" if rnd.random() < 0.1 else "") + text
    return text.encode()


@pytest.mark.parametrize("seed", range(300))
def test_rows_at_numbers_bytes_of_hostile_tables_as_a_rows_read_does(seed):
    data = _hostile_csv(seed)
    source = BytesSource(data, frame_bytes=64)
    starts = [start for start, _ in iter_rows(source, passed=[])]
    rnd = random.Random(seed)
    offsets = sorted(rnd.sample(range(len(data)), min(len(data), rnd.randint(1, 60))))
    expected = [None if at < starts[0] else bisect.bisect_right(starts, at) - 1 for at in offsets]
    assert rows_at(source, offsets) == expected


_CPP = b"""
prog:     file format elf64-x86-64


Disassembly of section .text:

0000000000001130 <std::max<long>(long const&, long const&)>:
    1130:\tf3 0f 1e fa          \tendbr64
    1134:\te8 07 00 00 00       \tcall   1140 <main>

0000000000001140 <main>:
    1140:\te8 eb ff ff ff       \tcall   1130 <std::max<long>(long const&, long const&)>

0000000000001150 <operator new[](unsigned long)@plt>:
    1150:\tc3                   \tret
"""


def test_a_disassembly_s_demangled_symbols_are_listed_and_found_by_the_search_named(scratch_scope):
    """objdump -dC: a symbol whose name holds ``>`` (a template's) was missing from the shape, and the pattern the
    shape named (``^[0-9a-f]+ <NAME>:``) found no symbol whose name holds ``(`` (a C++ function's): its search for
    each symbol listed, NAME replaced by the name as listed, lands on that symbol's line, the line listed."""
    stub = scratch_scope.spill(_CPP, source_tool="objdump")
    shape = describe(_CPP, len(_CPP), _CPP.count(b"\n")).text
    lines = _CPP.decode().split("\n")
    symbols = [(line.split(" <", 1)[1][:-2], number) for number, line in enumerate(lines, 1) if line.endswith(">:")]
    assert len(symbols) == 3
    tools = ScratchTools(scratch_scope)
    search = re.search(r'(match|pattern)="([^"]*)" finds a symbol', shape)
    assert search is not None, shape
    for name, number in symbols:
        assert f"{name} (line {number})" in shape, shape
        found = tools.call("read_handle", {"handle": stub.handle, search[1]: search[2].replace("NAME", name),
                                           "context": "line"})
        assert [w["line"] for w in found["windows"]] == [number], (name, found)


@pytest.mark.parametrize("allowed", ["inspector.example", "Inspector.Example.", "inspector.example.:8443"])
@pytest.mark.parametrize("host", ["inspector.example:8443", "inspector.example.:8443", "INSPECTOR.EXAMPLE.:8443"])
def test_an_allowed_host_is_one_name_with_or_without_its_root_dot(allowed, host):
    """``--allow-host inspector.example.`` (a fully qualified name, its root dot written) was kept with the dot, so
    the proxy's ``Host: inspector.example`` got a 421 with no way out, and ``--allow-host inspector.example`` refused
    ``Host: inspector.example.`` (the same name); neither lets another name through."""
    given = [allowed_host(allowed)]
    for target in (None, f"http://{host}/api/runs".encode()):
        scope = {"type": "http", "path": "/api/runs", "raw_path": target or b"/api/runs", "server": ("127.0.0.1", 1),
                 "headers": [] if target else [(b"host", host.encode())]}
        assert host_problem(scope, (), given) is None, (allowed, host, target)
        other = {**scope, "headers": [(b"host", b"inspector.example.evil:8443")], "raw_path": b"/api/runs"}
        assert host_problem(other, (), given)[0] == 421


def test_a_zip_whose_comment_holds_an_end_record_lists_its_members_and_reads_them(scratch_scope):
    """A zip's comment holding the bytes of an end of central directory record (another zip's, or made up: no
    members) was read by that record: no member listed, and a member's last lines by end= refused as 'in no member's
    data'. The record whose comment ends the content is the zip's."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", body := b"".join(b"alpha %d\n" % i for i in range(50)))
        archive.comment = b"see PK\x05\x06" + bytes(18) + b" (an end record)"
    raw = out.getvalue()
    start = 30 + len("a.txt")
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    tools = ScratchTools(scratch_scope)
    listing = tools.call("read_handle", {"handle": handle, "view": "members"})
    assert [(item["name"], item["offset"]) for item in listing["members"]] == [("a.txt", start)], listing
    reply = tools.call("read_handle", {"handle": handle, "line": -2, "end": start + len(body)})
    assert raw[reply["offset"] : reply["offset"] + reply["length"]] == b"alpha 48\nalpha 49\n", reply


def test_a_zip_member_whose_size_runs_into_the_directory_has_no_last_lines_there(scratch_scope):
    """A central header claiming more bytes than lie before the directory: the listing reads the member to the
    directory's start, but a read of the last lines before a byte of the directory took them as the member's
    (its lines holding the directory's bytes); now that byte is in no member's data and the refusal names the
    member's read, which ends at the directory."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", b"".join(b"alpha %d\n" % i for i in range(50)))
    raw = bytearray(out.getvalue())
    cd_offset = _END.unpack_from(raw, raw.rfind(b"PK\x05\x06"))[6]
    struct.pack_into("<I", raw, cd_offset + 20, _CENTRAL.unpack_from(raw, cd_offset)[8] + 40)  # (compressed size)
    raw = bytes(raw)
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "line": -2, "end": cd_offset + 20})
    assert "central directory" in str(caught.value)
    assert [dict(call.arguments)["end"] for call in caught.value.calls] == [cd_offset]
    reply = tools.call("read_handle", dict(caught.value.calls[0].arguments))
    assert raw[reply["offset"] : reply["offset"] + reply["length"]] == b"alpha 48\nalpha 49\n", reply
