"""The line counting of :mod:`scratchfs.engine.structure.row_jump` in C (rr4a), attacked (hostile12): ``newline_end``,
``line_offset``, ``record_at_line`` and ``broken_start`` against the plain split of bytes holding ``\\n``, ``\\r\\n``,
lone ``\\r`` or no line end at all, a byte order mark, bytes that are no UTF-8; counts of 0, negative, past the end and
huge; windows of a few bytes. And ``newline_end``'s bisection reads about twice its bytes, not each half again from
the start (8 MiB of blank lines: ``record_at_line`` 1.0 s -> 0.12 s)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.engine.structure import BytesSource, row_jump

_TEXTS = st.lists(st.sampled_from([b"\n", b"\r\n", b"\r", b"a", b" ", b"\t", b"{}", b"\xef\xbb\xbf", b"\xff", b'"',
                                   b"[1", b"\n\n"]), max_size=60).map(b"".join)
_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _plain_line_start(data: bytes, line: int) -> int | None:
    """The first byte of line ``line`` (from 1; below 1: 0) by the plain split, or None past the end."""
    parts = data.split(b"\n")
    return 0 if line <= 1 else None if line > len(parts) else sum(len(p) + 1 for p in parts[: line - 1])


def _plain_record(data: bytes, line: int) -> int:
    whole = data.split(b"\n")[:-1][: line - 1]  # (the lines before it that end at a \n)
    if whole and whole[0].startswith(b"\xef\xbb\xbf"):
        whole[0] = whole[0][3:]
    return line - sum(not part.strip(b" \t\r\x0b\x0c") for part in whole)


@pytest.mark.parametrize("window", [None, 5, 9])
@_SETTINGS
@given(data=_TEXTS, count=st.one_of(st.integers(-3, 80), st.sampled_from([10**18, -(10**18)])))
def test_the_counts_are_the_plain_split_s(data, count, window, monkeypatch):
    if window:
        monkeypatch.setattr(row_jump, "WINDOW_BYTES", window)
    if 1 <= count <= data.count(b"\n"):
        assert row_jump.newline_end(data, count) == _plain_line_start(data, count + 1)
    else:
        with pytest.raises(ValueError):
            row_jump.newline_end(data, count)
    assert row_jump.line_offset(BytesSource(data), count) == _plain_line_start(data, count)
    longest = max(len(part) + 1 for part in data.split(b"\n"))
    if count >= 1 and not (window and longest > window):  # (a line longer than the window is no blank one: said)
        assert row_jump.record_at_line(BytesSource(data), count) == _plain_record(data, count)


@pytest.mark.parametrize("back", [None, 3, 16])
@_SETTINGS
@given(data=_TEXTS, where=st.integers(0, 200))
def test_a_broken_record_starts_at_a_line_start_before_the_error(data, where, back, monkeypatch):
    if back:
        monkeypatch.setattr(row_jump, "BACK_BYTES", back)
    offset = min(where, len(data))
    lines, start = row_jump.broken_start(BytesSource(data), offset)
    head = data.rfind(b"\n", 0, offset) + 1
    assert start <= head and (start == 0 or data[start - 1] == 0x0A)
    assert data.count(b"\n", start, head) == lines


class _Counted(bytes):
    """Bytes that add up what their ``count`` calls read."""

    read = 0

    def count(self, sub, start=0, end=None):
        end = len(self) if end is None else end
        type(self).read += max(0, end - start)
        return bytes.count(self, sub, start, end)


def test_newline_end_reads_about_twice_its_bytes():
    data = _Counted(b"\n" * (1 << 20))
    _Counted.read = 0
    assert row_jump.newline_end(data, 1_000_000) == 1_000_000
    assert _Counted.read <= 3 * len(data)  # (the whole count that checks it, then halves: it read 19x before)


@pytest.mark.parametrize("window", [None, 5, 9])
@_SETTINGS
@given(data=_TEXTS, line=st.integers(1, 80), back=st.integers(0, 80))
def test_one_pass_places_a_line_and_its_record_as_the_two_passes_did(data, line, back, window, monkeypatch):
    """``line_place`` is ``(record_at_line, line_offset)`` from one pass, and the record ``back`` lines before it is
    that record less ``records_in_lines`` from that line's start (open10: jq_failure passed over the content from
    byte 0 twice when jq gave no byte)."""
    if window:
        monkeypatch.setattr(row_jump, "WINDOW_BYTES", window)
    source = BytesSource(data)
    record, at = row_jump.line_place(source, line)
    assert (record, at) == (row_jump.record_at_line(source, line), row_jump.line_offset(source, line))
    earlier = max(1, line - back)
    start = row_jump.line_offset(source, earlier)
    if start is not None and at is not None:
        assert record - row_jump.records_in_lines(source, start, line - earlier) == row_jump.record_at_line(
            source, earlier)
