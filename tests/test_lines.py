"""Line-range reads equal the same lines of the original split at \\n (ends kept), as grep -n and sed count them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import MAX_READ_BYTES, InvalidArgument

from .reference import lines_of

_piece = st.sampled_from([b"a", b"xyz ", b"\r", b"\r\n", b"\n", b"\n\n", b"\xc3\xa9", b"\t"])


@st.composite
def texts(draw):
    parts = draw(st.lists(st.one_of(_piece, st.binary(max_size=30)), max_size=200))
    if draw(st.booleans()):  # a line longer than a 4 KiB frame
        at = draw(st.integers(0, len(parts)))
        parts.insert(at, b"L" * draw(st.integers(4000, 12000)))
    return b"".join(parts)


def check_lines(scope, data: bytes, line: int, count: int) -> None:
    handle = scope.spill(data, source_tool="t").handle
    ref = lines_of(data)
    total = len(ref)
    if line > max(total, 1):
        with pytest.raises(InvalidArgument, match="past the end"):
            scope.read_handle(handle, line=line, lines=count)
        return
    got = scope.read_handle(handle, line=line, lines=count)
    want = b"".join(ref[line - 1 : line - 1 + count])
    assert got.total_lines == total
    assert got.first_line == line
    assert got.offset == sum(len(x) for x in ref[: line - 1])
    assert got.size == len(data)
    if len(want) > MAX_READ_BYTES:
        assert got.cut == (not want[:MAX_READ_BYTES].endswith(b"\n"))
        assert got.data == want[:MAX_READ_BYTES]
    else:
        assert not got.cut
        assert got.data == want
    end = got.offset + len(got.data)
    assert got.next_offset == (end if end < len(data) else None)
    started = got.data.count(b"\n") + (1 if got.cut else 0)
    following = line + started
    assert got.next_line == (following if following <= total and end < len(data) else None)
    assert got.lines == got.data.count(b"\n") + (1 if got.data and not got.data.endswith(b"\n") else 0)


@given(data=texts(), line=st.integers(1, 120), count=st.integers(1, 60))
def test_line_reads_equal_the_split_lines(small_frames_store, data, line, count):
    check_lines(small_frames_store.scope("r", "a"), data, line, count)


@pytest.mark.parametrize("name", ["workspace-grep-stdlib-defs.txt", "query-packages-by-month.csv",
                                  "browser-rust-book.html", "api-ec2-service-model.json"])
def test_line_reads_on_fixtures(small_frames_store, fixture_data, name):
    data = fixture_data[name]
    scope = small_frames_store.scope("r", "a")
    total = len(lines_of(data))
    for line in (1, 2, total // 3, total // 2, total - 1, total):
        check_lines(scope, data, line, 37)


def test_reading_every_line_by_next_line(small_frames_store, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="workspace.grep").handle
    parts, line = [], 1
    while line is not None:
        got = scope.read_handle(handle, line=line, lines=500)
        assert got.next_call is None or f"line={got.next_line}" in got.next_call
        parts.append(got.data)
        line = got.next_line
    assert b"".join(parts) == data


def test_a_line_longer_than_the_cap_is_cut_and_says_where_it_goes_on(scope):
    data = b"short\n" + b"{" + b'"k":1,' * 30000 + b"}\n" + b"after\n"
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, line=2, lines=2)
    assert got.cut
    assert len(got.data) == MAX_READ_BYTES
    assert got.next_offset == 6 + MAX_READ_BYTES
    assert got.next_line == 2  # the cut line goes on at next_offset, read by lines: nothing is skipped
    assert got.next_call == f'read_handle(handle="{handle}", offset={got.next_offset}, lines=2)'
    parts = [got.data]
    while got.next_call is not None:  # follow the cursor: by lines, from where each read stopped
        got = scope.read_handle(handle, got.next_offset, lines=2)
        assert got.first_line == 2 and got.offset == 6 + sum(map(len, parts))
        parts.append(got.data)
    assert b"".join(parts) == data[6:] and got.data.endswith(b"}\nafter\n")
    assert scope.read_handle(handle, line=3).data == b"after\n"


def test_carriage_returns_end_no_line(scope):
    data = b"10%\r20%\r100%\ndone\r\n"
    handle = scope.spill(data, source_tool="t").handle
    first = scope.read_handle(handle, line=1, lines=1)
    assert first.data == b"10%\r20%\r100%\n"
    assert first.total_lines == 2
    assert scope.read_handle(handle, line=2).data == b"done\r\n"


def test_empty_output_and_line_count(scope):
    empty = scope.spill(b"", source_tool="t")
    assert empty.lines == 0
    assert scope.read_handle(empty.handle, line=1).data == b""
    assert scope.spill(b"a\nb", source_tool="t").lines == 2
    assert scope.spill(b"a\nb\n", source_tool="t").lines == 2
    assert scope.spill(b"\n", source_tool="t").lines == 1


def test_a_line_read_from_an_offset_decodes_its_frame_once_and_names_the_right_line(small_frames_store,
                                                                                     monkeypatch):
    from scratchfs.engine.seekable import SeekableReader

    data = b"".join(b"line %05d %s\n" % (i, b"x" * (i % 37)) for i in range(3000))  # ~100 KiB: 4 KiB frames
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    decoded = []
    real = SeekableReader.decode
    monkeypatch.setattr(SeekableReader, "decode", lambda self, i, raw: decoded.append(i) or real(self, i, raw))
    for offset in (0, 1, 4095, 4096, 4097, 50_000, len(data) - 1, len(data)):
        decoded.clear()
        got = scope.read_handle(handle, offset, lines=1)
        assert got.first_line == data[:offset].count(b"\n") + 1
        assert got.data == data[offset: data.find(b"\n", offset) + 1 if offset < len(data) else offset]
        assert len(decoded) == len(set(decoded)) <= 2  # each frame touched decoded once (a line may span two)


@given(st.lists(st.one_of(_piece, st.binary(max_size=30), st.integers(1, 20_000).map(lambda n: b"L" * n)),
                max_size=60), st.sampled_from([4096, 8192, 5000]))
def test_the_longest_line_bound_is_never_under_the_longest_line(parts, frame_bytes):
    """What a stub decides a pattern search on (a line over its bound refuses it): the bound from the per-frame
    newline counts is at least the longest line, and at most the size."""
    from scratchfs.engine.lines import longest_line_bound
    from scratchfs.engine.seekable import SeekableWriter

    data = b"".join(parts)
    writer = SeekableWriter(bytearray(), frame_bytes, count_lines=True)
    writer.write(data)
    writer.close()
    bound = longest_line_bound(writer.frame_newlines.tobytes(), len(data))
    assert max(map(len, data.split(b"\n"))) <= bound <= len(data)
