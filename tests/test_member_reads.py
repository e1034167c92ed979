"""Reads of a tar or zip member go on within the member and end with it: the ``read`` of a member that
``view="members"`` lists (and the call a tar's stub names) read past the member's end by its ``next_call`` -- the
same length from the last byte shown, into the next header or the archive's padding -- whenever the budget cut the
first reply short (a 10,000-byte member of JSON lines: 6,430 bytes shown, next_call ``offset=6942, length=10000``).
Such a read is bounded, ``end=`` the member's end, and so is every read that follows it: ranges and lines."""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from tests.archives import call_args, tar_of


def _zip(files: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in files:
            archive.writestr(name, data)
    return out.getvalue()


def _member(seed: int, size: int, kind: str) -> bytes:
    rng = random.Random(seed)
    if kind == "binary":
        return rng.randbytes(size)
    words = ["ok", "café", "日本", "step", "\t", "{\"id\": 1}", "😀"]
    text = "".join(rng.choice(words) + ("\n" if rng.random() < 0.2 else " ") for _ in range(size))
    return text.encode()[:size]


def _follow(tools: ScratchTools, call: dict, start: int, end: int, raw: bytes) -> bytes:
    """Every reply of a read and the ones its next_call gives, checked to stay within ``[start, end)``; the bytes
    they show, joined."""
    shown, replies = b"", 0
    while call is not None:
        reply = tools.call("read_handle", call)
        replies += 1
        assert start <= reply["offset"] and reply["offset"] + reply["length"] <= end, reply
        assert reply.get("remaining", 0) == (end - reply["offset"] - reply["length"]), reply
        assert ("remaining" in reply) == (reply["next_offset"] is not None), reply
        if reply.get("encoding") == "hexdump":
            shown += b"".join(bytes.fromhex(line[10:57]) for line in reply["data"].split("\n") if line)
        else:
            shown += raw[reply["offset"] : reply["offset"] + reply["length"]]
            assert reply["data"].encode() == shown[-reply["length"]:] or "\ufffd" in reply["data"], reply
        call = call_args(reply["next_call"]) if reply["next_call"] else None
        if call is not None:
            assert call["end"] == end and start <= call.get("offset", start) < end, call
        assert replies < 500
    return shown


_FILES = st.lists(st.tuples(st.integers(0, 2**32), st.integers(1, 30_000), st.sampled_from(["text", "binary"])),
                  min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=_FILES, archive=st.sampled_from(["tar", "zip"]), budget=st.sampled_from([2048, 8192]),
       how=st.sampled_from(["read", "lines", "short"]))
def test_following_a_member_read_shows_the_member_exactly_and_ends_with_it(scratch_scope, files, archive, budget,
                                                                           how):
    members = [(f"m{i}", _member(seed, size, kind)) for i, (seed, size, kind) in enumerate(files)]
    raw = (tar_of if archive == "tar" else _zip)(members)
    handle = scratch_scope.spill(raw, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    listed = tools.call("read_handle", {"handle": handle, "view": "members", "budget": 65536})["members"]
    assert [m["name"] for m in listed] == [name for name, _ in members]
    for item, (_, data) in zip(listed, members, strict=True):
        start, end = item["offset"], item["offset"] + item["length"]
        call = {**call_args(item["read"]), "budget": budget}
        assert call["end"] == end
        if how == "lines":  # lines of it, from its offset (the README offers them)
            call = {"handle": handle, "offset": start, "lines": 40, "end": end, "budget": budget}
        elif how == "short":  # pages of a length shorter than the member's
            call["length"] = 1000
        assert _follow(tools, call, start, end, raw) == data


def test_the_member_read_of_the_brief_ends_at_the_member(scratch_scope):
    """The 10,000-byte member of JSON lines: its read showed 6,430 bytes and went on at offset 6942 for 10,000
    bytes, to byte 16,942, past the member's end (10,512) into the next member's header."""
    jsonl = b"".join(b'{"i": %d, "pad": "xxxxxxxx"}\n' % i for i in range(400))[:10_000]
    raw = tar_of([("a.jsonl", jsonl), ("b.txt", b"other\n" * 500)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    first = tools.call("read_handle", {"handle": handle, "view": "members"})["members"][0]
    assert first["read"] == f'read_handle(handle="{handle}", offset=512, length=10000, end=10512)'
    reply = tools.call("read_handle", call_args(first["read"]))
    assert reply["next_offset"] < 10_512 and reply["remaining"] == 10_512 - reply["next_offset"]
    last = tools.call("read_handle", call_args(reply["next_call"]))
    assert last["offset"] + last["length"] == 10_512 and last["next_call"] is None and "remaining" not in last


def test_the_stub_of_a_tar_names_a_read_bounded_at_its_first_member(scratch_scope):
    raw = tar_of([("a.txt", b"words and more\n" * 800), ("b.txt", b"x\n" * 10)])
    stub = scratch_scope.spill(raw, source_tool="tar")
    assert f'read_handle(handle="{stub.handle}", offset=512, end=12512)' in stub.note, stub.note
    assert "end= their sum" in stub.note


@pytest.mark.parametrize(("arguments", "message"), [
    ({"offset": 512, "end": 10**9}, "past the content's end"),
    ({"offset": 600, "end": 600}, "not after the read's start"),
    ({"line": 3, "lines": 5, "end": 10}, "not after the read's start"),
    ({"match": "x", "offset": 900, "end": 900}, "not after the read's start"),
    ({"pattern": "x", "end": 10**9, "count": True}, "past the content's end"),
    ({"match": "x", "end": 900, "before": 901}, "past end=900"),
    ({"view": "members", "end": 900}, "cannot be mixed"),
    ({"offset": 512, "end": 0}, "end"),
])
def test_an_end_that_bounds_nothing_is_one_typed_error(scratch_scope, arguments, message):
    raw = tar_of([("a.txt", b"words and more\n" * 800)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    with pytest.raises(InvalidArgument, match=message):
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle, **arguments})


def test_an_end_bounds_a_text_entry_s_range_too(scratch_scope):
    data = "".join(f"line {i} café\n" for i in range(2000)).encode()
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    assert _follow(tools, {"handle": handle, "offset": 100, "length": 3000, "end": 9001}, 100, 9001, data) == \
        data[100:9001]


@pytest.mark.parametrize(("offset", "length", "end", "shown", "next_offset"), [
    (0, 1, 2, "é", None),  # the one character the range starts with, whole: it ends at the bound
    (4, 1, 7, "é", 6),
    (0, 1, 1, "\ufffd", None),  # a character the bound cuts: its bytes before it, as U+FFFD
])
def test_a_range_shorter_than_its_first_character_stops_at_the_bound(scratch_scope, offset, length, end, shown,
                                                                      next_offset):
    """The range read again wider to hold its first character whole went on past the bound it reached: its
    next_call asked for ``offset=end, end=end``, which is refused."""
    handle = scratch_scope.spill("é".encode() * 3000, source_tool="t").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "offset": offset, "length": length,
                                                             "end": end})
    assert (reply["data"], reply["next_offset"]) == (shown, next_offset), reply
    assert (reply["next_call"] is None) is (next_offset is None)


def test_the_last_lines_of_a_member_are_read_from_its_end(scratch_scope):
    """``line=-3, end=E`` (a member's last lines, as its listed read bounds it) counted from the content's end and
    was refused ("end=... is not after the read's start (byte ...)"), saying nothing of how to read a member's tail;
    it is the last lines before ``end``, as ``tail -n`` gives them of the member."""
    a = b"".join(b"a.log line %d\n" % i for i in range(500))
    raw = tar_of([("a.log", a), ("b.log", b"b.log line\n" * 500)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    member = tools.call("read_handle", {"handle": handle, "view": "members"})["members"][0]
    end = member["offset"] + member["length"]
    reply = tools.call("read_handle", {"handle": handle, "line": -3, "lines": 3, "end": end})
    assert reply["data"] == "a.log line 497\na.log line 498\na.log line 499\n"
    before = reply["offset"]  # the 3 lines before the first read: the last 3 before it
    start = member["offset"]  # (the walk back goes no further than the member's first byte: its next_calls say so)
    assert reply["next_call"] == f'read_handle(handle="{handle}", offset={start}, line=-3, lines=3, end={before})'
    assert reply["offset"] + reply["length"] == end
    earlier = tools.call("read_handle", {"handle": handle, "line": -3, "lines": 3, "end": before})
    assert earlier["data"] == "a.log line 494\na.log line 495\na.log line 496\n"  # (it read on forwards, into
    assert earlier["next_call"].endswith(f'line=-3, lines=3, end={earlier["offset"]})')  # 497-499 again, before)


@given(lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), min_size=1, max_size=300),
       back=st.integers(1, 40), cut=st.floats(0, 1))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_negative_line_with_an_end_is_tail_of_the_bytes_before_it(small_frames_store, lines, back, cut):
    from tests.reference import lines_of

    data = b"".join(line + b"\n" for line in lines)
    end = 1 + int(cut * (len(data) - 1))
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, line=-back, lines=back, end=end)
    assert got.data == b"".join(lines_of(data[:end])[-back:])
