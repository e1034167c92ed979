"""Hostile inputs to this session's new reads (helper hostile34): each test failed before its fix."""

from __future__ import annotations

import io
import struct
import zipfile

from scratchfs.api.contract import ScratchTools
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
