"""How many lines a stub's line reads name (``line_fit.lines_within``) against the plain answer: join the first (last)
k lines as a read returns them and count their JSON string's bytes, for k = 1, 2, ... while they fit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.line_fit import lines_within
from scratchfs.foundation.limits import DEFAULT_LINES, DEFAULT_READ_BYTES


def _json_text_bytes(data: bytes) -> int:
    """The bytes of ``data`` as JSON string text, quotes left out (RFC 8259, section 7), one byte at a time."""
    return sum(2 if byte in b'"\\\b\t\n\f\r' else 6 if byte < 0x20 else 1 for byte in data)


def _plain(data: bytes, at_end: bool, at_start: bool, forward: bool) -> int | None:
    if len(data) <= DEFAULT_READ_BYTES and not (at_end if forward else at_start):
        return None
    if forward:  # each line with its newline; a last one no newline ends only at the content's end
        pieces = data.split(b"\n")
        lines = [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if at_end and pieces[-1] else [])
        text = lambda k: b"".join(lines[:k])  # noqa: E731
    else:  # the last lines, the newline that ends the last one not in the read's text
        pieces = (data[:-1] if data.endswith(b"\n") else data).split(b"\n")
        lines = (pieces if at_start else pieces[1:])[::-1]
        text = lambda k: b"\n".join(reversed(lines[:k]))  # noqa: E731
    count = 0
    while count < min(len(lines), DEFAULT_LINES) and _json_text_bytes(text(count + 1)) + 1 <= DEFAULT_READ_BYTES:
        count += 1
    return count


_PIECES = [b"a", b"\n", b'"', b"\\", b"\t", b"\r", b"\x1b", b"\x00", b"\xc3\xa9", b"x" * 90, b"\n\n", b"y" * 700]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=900), st.booleans(), st.booleans(), st.booleans())
def test_lines_within_gives_the_plain_answer(pieces, at_end, at_start, forward):
    data = b"".join(pieces)
    assert lines_within(data, at_end, at_start, forward) == _plain(data, at_end, at_start, forward)


def test_a_window_at_the_budget_edge():
    # 40 lines of 100 bytes (4,040 bytes of text): 40 fit forward; one quote more a line and the 40th does not
    plain = b"".join(b"%03d" % i + b"-" * 96 + b"\n" for i in range(60))
    assert lines_within(plain[:4097], False, False, True) == 40
    quoted = plain.replace(b"-" * 2, b'""', 1).replace(b"---", b"--\"")
    assert lines_within(quoted[:4097], False, False, True) == _plain(quoted[:4097], False, False, True) < 40
    assert lines_within(plain, True, True, False) == 40


def test_the_line_that_ends_at_the_budget_fits_and_one_byte_more_does_not():
    # 40 lines costing 101 bytes of JSON each (99 characters and "\\n"), then one of n characters: n + 2 more, and
    # the read's one byte: 41 lines when 4,042 + n + 1 <= 4,096
    lines = b"".join(b"%02d" % i + b"-" * 97 + b"\n" for i in range(40))
    for n, want in ((53, 41), (54, 40)):
        data = lines + b"=" * n + b"\n" + b"z" * 5000
        assert lines_within(data[:4097], False, False, True) == want == _plain(data[:4097], False, False, True)
        back = b"z" * 5000 + b"\n" + b"=" * n + b"\n" + lines  # the same 41 lines last, read back from the end
        tail = back[-4098:]
        assert lines_within(tail, True, False, False) == _plain(tail, True, False, False)


def test_the_lines_near_the_read_edge_are_counted_as_written_out():
    # (stubcost1) data whose JSON text holds more than a read: the lines between the bounds its escapes set are
    # counted one by one, or, when many, in the text written out; at 50 lines the count stops
    cases = {
        "one by one": b"".join(b"%03d" % i + b'"' * 9 + b"-" * 60 + b"\n" for i in range(80)),
        "many between the bounds": b"".join(b'"' * 30 + b"\n" for _ in range(300)),
        "50 before the bounds": b"".join(b"%02d\n" % (i % 100) for i in range(900)) + b'"' * 3000,
        "controls": b"".join(b"\x01" * 20 + b"ab\n" for _ in range(200)),
    }
    for name, data in cases.items():
        for at_end, at_start in ((False, False), (True, True)):
            head, tail = data[:4097], data[-4098:]
            assert lines_within(head, at_end, at_start, True) == _plain(head, at_end, at_start, True), name
            assert lines_within(tail, at_end, at_start, False) == _plain(tail, at_end, at_start, False), name
            back = data[::-1][-4098:]  # (the 50 lines at the end, read back)
            assert lines_within(back, at_end, at_start, False) == _plain(back, at_end, at_start, False), name
