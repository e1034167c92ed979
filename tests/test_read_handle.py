"""read_handle: byte ranges and match windows equal the plain Python answer, across frame boundaries too."""

from __future__ import annotations

import sqlite3
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import MAX_READ_BYTES, CorruptBlob, InvalidArgument, NotFound, ScratchStore

from .reference import find_loop, line_of, windows


def as_tuples(result):
    return [(w.match_offset, w.offset, w.data, tuple(h.offset for h in w.matches)) for w in result.windows], \
        result.next_offset


@given(data=st.binary(max_size=30_000),
       ranges=st.lists(st.tuples(st.integers(0, 30_000), st.integers(1, 70_000)), min_size=1, max_size=6))
def test_range_reads_equal_the_slice(small_frames_store, data, ranges):
    scope = small_frames_store.scope("r", "a")
    stub = scope.spill(data, source_tool="t")
    assert stub.size == len(data)
    for offset, length in ranges:
        if offset > len(data):
            with pytest.raises(InvalidArgument, match="past the end"):
                scope.read_handle(stub.handle, offset, length)
            continue
        with pytest.raises(InvalidArgument, match="length must be at least 1"):
            scope.read_handle(stub.handle, offset, 0)
        got = scope.read_handle(stub.handle, offset, length)
        want = data[offset : offset + min(length, MAX_READ_BYTES)]
        assert got.data == want
        assert got.size == len(data)
        end = offset + len(want)
        assert got.next_offset == (end if end < len(data) else None)


def test_reading_a_whole_blob_by_next_offset(small_frames_store, fixture_data):
    scope = small_frames_store.scope("r", "a")
    data = fixture_data["browser-rust-book.html"]
    handle = scope.spill(data, source_tool="browser.get").handle
    parts, offset = [], 0
    while offset is not None:
        part = scope.read_handle(handle, offset, MAX_READ_BYTES)
        parts.append(part.data)
        offset = part.next_offset
    assert b"".join(parts) == data
    assert len(parts) == -(-len(data) // MAX_READ_BYTES)


# needles and haystacks built so that matches land on frame boundaries (4 KiB frames)
_alphabet = st.sampled_from([b"a", b"b", b"ab", b"\n", b"\xc3\xa9", b"xyz"])


@st.composite
def haystack_and_needle(draw):
    needle = b"".join(draw(st.lists(_alphabet, min_size=1, max_size=4)))
    pieces = draw(st.lists(st.one_of(st.just(needle), _alphabet, st.binary(max_size=50)), max_size=80))
    data = b"".join(pieces)
    # put copies of the needle across a frame boundary
    for boundary in draw(st.lists(st.integers(1, 6), max_size=3)):
        cut = draw(st.integers(0, len(needle)))
        at = boundary * 4096 - cut
        if at > len(data):
            data += b"." * (at - len(data))
        data = data[:at] + needle + data[at:]
    return data, needle


@given(case=haystack_and_needle(), start=st.integers(0, 30_000), context=st.integers(0, 300),
       max_matches=st.integers(1, 50))
def test_match_windows_equal_a_find_loop(small_frames_store, case, start, context, max_matches):
    data, needle = case
    start = min(start, len(data))
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, start, match=needle, context=context, max_matches=max_matches)
    assert as_tuples(got) == windows(data, find_loop(data, needle, start), context, max_matches)
    for window in got.windows:
        assert window.line == line_of(data, window.match_offset)
        assert [h.line for h in window.matches] == [line_of(data, h.offset) for h in window.matches]
        assert all(h.length == len(needle) for h in window.matches)


def test_resuming_a_search_finds_every_match_once(small_frames_store, fixture_data):
    scope = small_frames_store.scope("r", "a")
    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = scope.spill(data, source_tool="workspace.grep").handle
    needle = b"def __init__"
    found, offset = [], 0
    while offset is not None:
        result = scope.read_handle(handle, offset, match=needle, context=30, max_matches=7)
        found += [h.offset for w in result.windows for h in w.matches]
        assert result.match_count <= 7
        offset = result.next_offset
    want = [start for start, _ in find_loop(data, needle)]
    assert found == want
    assert len(want) == data.count(needle) > 100


def test_windows_of_one_call_stay_within_the_cap(scope):
    data = b"needle" + b"." * 8000 + b"needle"
    data = data * 40
    handle = scope.spill(data, source_tool="t").handle
    result = scope.read_handle(handle, match="needle", context=8192, max_matches=1000)
    assert sum(len(w.data) for w in result.windows) <= MAX_READ_BYTES
    assert len(result.windows) == 1  # every window overlaps the next: one merged window
    last = result.windows[-1].matches[-1].offset
    assert result.next_offset == data.find(b"needle", last + 6)
    assert result.remaining == len(data) - result.next_offset
    assert result.next_call == (f'read_handle(handle="{handle}", match="needle", offset={result.next_offset}, '
                                'context=8192, max_matches=1000)')


def test_text_needle_is_searched_as_utf8(scope, fixture_data):
    data = fixture_data["browser-rust-book.html"]
    handle = scope.spill(data, source_tool="browser.get").handle
    result = scope.read_handle(handle, match="Rust’s", context=5, max_matches=3)
    assert result.windows[0].match_offset == data.find("Rust’s".encode())


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"offset": -1}, "offset"),
    ({"length": 0}, "length"),
    ({"line": 0}, "line"),
    ({"line": 2, "offset": 5}, "line read"),
    ({"lines": 10**6}, "lines"),
    ({"match": "x", "pattern": "y"}, "not both"),
    ({"pattern": "("}, "compile"),
    ({"pattern": ""}, "empty"),
    ({"pattern": "(?<=x{20000})a"}, "lookbehind"),
    ({"pattern": b"bytes"}, "text"),
    ({"ignore_case": True}, "searches"),
    ({"match": b"x", "ignore_case": True}, "needs text"),
    ({"offset": 1.5}, "offset"),
    ({"offset": True}, "offset"),
    ({"length": -5}, "length"),
    ({"length": float("nan")}, "length"),
    ({"match": ""}, "empty"),
    ({"match": "x", "context": -1}, "context"),
    ({"match": "x", "context": 10**9}, "context"),
    ({"match": "x", "max_matches": 0}, "max_matches"),
    ({"match": "x", "max_matches": float("inf")}, "max_matches"),
    ({"match": "x" * 5000}, "longer"),
    ({"match": 42}, "text or bytes"),
    ({"match": "x", "length": 10}, "length= applies"),
])
def test_bad_read_arguments_raise_invalid_argument(scope, kwargs, message):
    handle = scope.spill(b"x" * 100, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=message):
        scope.read_handle(handle, **kwargs)


@pytest.mark.parametrize("handle", ["", "h_", "nope", "h_" + "A" * 24, "../../etc/passwd", None, 42])
def test_malformed_handles_raise_invalid_argument(scope, handle):
    with pytest.raises(InvalidArgument, match="not a handle"):
        scope.read_handle(handle)


def test_end_offset_and_huge_length(scope):
    handle = scope.spill(b"0123456789", source_tool="t").handle
    assert scope.read_handle(handle, 10, 5).data == b""
    assert scope.read_handle(handle, 10, 5).next_offset is None
    assert scope.read_handle(handle, 10, 5).next_call is None
    assert scope.read_handle(handle, 0, 10**12).data == b"0123456789"
    part = scope.read_handle(handle, 2, 3)
    assert (part.data, part.next_offset, part.remaining) == (b"234", 5, 5)
    assert part.next_call == f'read_handle(handle="{handle}", offset=5, length=3)'


def test_unknown_well_formed_handle_is_not_found(scope):
    with pytest.raises(NotFound):
        scope.read_handle("h_" + "a" * 24)


@given(gaps=st.lists(st.integers(0, 20_000), min_size=1, max_size=12),
       needle=st.sampled_from([b"N", b"NEEDLE", b"x\ny"]), start=st.integers(0, 60_000), context=st.integers(0, 5000),
       max_matches=st.integers(1, 8))
def test_sparse_matches_across_many_frames(small_frames_store, gaps, needle, start, context, max_matches):
    # long stretches without a match, frames skipped without copying, windows closed as they complete
    filler = b"abcdefghij\n"
    data = b"".join((filler * (gap // len(filler) + 1))[:gap] + needle for gap in gaps) + filler * 50
    start = min(start, len(data))
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, start, match=needle, context=context, max_matches=max_matches)
    assert as_tuples(got) == windows(data, find_loop(data, needle, start), context, max_matches)
    for window in got.windows:
        assert [h.line for h in window.matches] == [line_of(data, h.offset) for h in window.matches]


def test_a_match_longer_than_the_read_cap_is_shown_cut_and_passed(scope):
    data = b"a\n" + b"x" * 100_000 + b"\nb\n" + b"x" * 50 + b"\n"
    handle = scope.spill(data, source_tool="t").handle
    first = scope.read_handle(handle, pattern=r"^x+$")
    (window,) = first.windows
    assert (window.matches[0].offset, window.matches[0].length) == (2, 100_000)
    assert window.data == data[window.offset : window.offset + 65536]
    assert first.next_offset == 100_005  # the search moves on instead of returning the same call forever
    second = scope.read_handle(handle, first.next_offset, pattern=r"^x+$")
    assert [h.offset for w in second.windows for h in w.matches] == [100_005]
    assert second.next_offset is None


@pytest.fixture(scope="module")
def two_layouts(tmp_path_factory):
    """The same 40,000 bytes (4 KiB frames) in a blob file and as a segment entry: the two sources a range read
    opens (:class:`~scratchfs.engine.blob_file.LocalSource`, :class:`~scratchfs.engine.segments.SegmentSource`)."""
    data = bytes(range(256)) * 150 + b"line\n" * 320
    opened = []
    for segment_bytes in (0, 65536):
        store = ScratchStore(tmp_path_factory.mktemp("layout"), frame_bytes=4096, segment_entry_bytes=segment_bytes)
        scope = store.scope("r", "a")
        opened.append((store, scope, scope.spill(data, source_tool="t").handle))
    yield data, opened
    for store, _, _ in opened:
        store.close()


@given(ranges=st.lists(st.tuples(st.integers(0, 40_000), st.integers(1, 13_000)), min_size=1, max_size=8),
       edges=st.lists(st.tuples(st.integers(1, 9), st.integers(-5, 5), st.integers(1, 9)), max_size=4))
def test_range_reads_of_both_layouts_equal_the_slice(two_layouts, ranges, edges):
    # offsets anywhere, and around frame boundaries (k * 4096 + d), lengths inside one frame or across several
    data, opened = two_layouts
    ranges = ranges + [(k * 4096 + d, n * 1000) for k, d, n in edges]
    for _, scope, handle in opened:
        for offset, length in ranges:
            got = scope.read_range(handle, offset, length)
            want = data[offset : offset + length]
            assert (got.offset, got.data, got.size) == (offset, want, len(data))
            assert got.next_offset == (offset + len(want) if offset + len(want) < len(data) else None)


def test_a_range_read_checks_the_rows_line_counts_against_the_blob(tmp_path):
    # the range read builds no line table, but a row whose per-frame line counts do not match the blob's frames is
    # still refused as a damaged entry, as a line read refuses it
    with ScratchStore(tmp_path, frame_bytes=4096, segment_entry_bytes=0) as store:
        scope = store.scope("r", "a")
        data = b"0123456789\n" * 2000  # 22,000 bytes: 6 frames
        handle = scope.spill(data, source_tool="t").handle
        assert scope.read_range(handle, 4090, 12).data == data[4090:4102] == b"9\n0123456789"  # across frames
        conn = sqlite3.connect(tmp_path / "index.sqlite")
        with conn:
            (counts,) = conn.execute("SELECT frame_newlines FROM entries WHERE key = ?", (handle,)).fetchone()
            assert len(counts) == 6 * array("I").itemsize
            conn.execute("UPDATE entries SET frame_newlines = ? WHERE key = ?", (counts[:-4], handle))
        conn.close()
        for read in (lambda: scope.read_range(handle, 0, 10), lambda: scope.read_handle(handle, line=1, lines=2)):
            with pytest.raises(CorruptBlob, match=f"{handle}: the index's line counts do not match"):
                read()
        other = scope.spill(b"abc", source_tool="t").handle  # a good row: the offset checks are unchanged
        assert (scope.read_range(other, 3, 5).data, scope.read_range(other, 3, 5).next_offset) == (b"", None)
        with pytest.raises(InvalidArgument, match="offset 4 is past the end"):
            scope.read_range(other, 4, 1)
