"""Shape detection of a small spill made cheaper with every answer the same (issue 16's T1 and S2, helper
describecost_small2): grep output's shape told without its lines' events, which it never said; the odd-byte count of
a sample over 8 KiB stopped once decided; a diagnostics' first-line place read once; JSON lines after a first line
looked for only where a bracket is. Each against the code it stands for, on generated inputs, and
shown taken."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_diagnostics

_GREP_LINES = st.lists(st.sampled_from([
    b"src/a.py:12:def f():", b"src/a.py:13:    raise ValueError('x')", b"src/b.py:7:ERROR = 1", b"src/b.py:8-",
    b"Traceback (most recent call last):", b'  File "x.py", line 1, in <module>', b"ValueError: bad",
    b"2026-01-01 10:00:00 ERROR failed", b"WARNING: low", b"\tat com.x.Y.m(Y.java:42)", b"    at f (/a.js:2:38)",
    b"plain words", b"", b"lib/c.rb:99:  end"]), min_size=1, max_size=40).map(b"\n".join)


def test_grep_output_is_told_without_its_events(monkeypatch):
    """grep output's shape says its files, not the events a log's or a text's would: they are not looked for (the
    scans of text_told and log_told cost 5-10 us a spill), and its answer is the one they left unsaid."""
    sample = b"".join(b"src/mod%d.py:%d:    raise ValueError('bad %d')\n" % (i % 4, i, i) for i in range(60))
    before = shape.describe(sample, len(sample), 60)

    def untold(_sample):
        raise AssertionError("events looked for")

    monkeypatch.setattr(shape, "text_told", untold)
    monkeypatch.setattr(shape, "log_told", untold)
    found = shape.describe(sample, len(sample), 60)
    assert found == before
    assert found.text.endswith("grep-style path:line: output (4 files in all; most lines: src/mod0.py (line 1, 15 "
                               "lines), src/mod1.py (line 2, 15 lines), src/mod2.py (line 3, 15 lines), src/mod3.py "
                               "(line 4, 15 lines); line=N reads from a file's first line)")
    assert found.first_error is None


@settings(max_examples=300, deadline=None)
@given(_GREP_LINES)
@example(b"src/a.py:12:def f():\nTraceback (most recent call last):\n" * 8)
def test_grep_output_says_no_event_and_no_first_error(sample):
    """Where the shape is grep output's, nothing of the lines' events is in it and no first error is named -- what
    the events told before were replaced by (their clause by the files', their line by none)."""
    found = shape.describe(sample, len(sample), sample.count(b"\n") + (not sample.endswith(b"\n")))
    if found.content_type in ("text", "log") and "grep-style" in found.text:
        told = shape.text_told(sample).said if found.content_type == "text" else shape.log_told(sample).said
        assert found.first_error is None
        assert not told or told not in found.text


def _odd_as_defined(data: bytes, odd: int) -> bool:
    """``_few_odd`` as its docstring defines it: every control byte counted."""
    return odd + len(data.translate(None, shape._NOT_ODD_CONTROL)) <= shape.MAX_ODD_SHARE * len(data)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 20000), st.lists(st.integers(0, 20000), max_size=40), st.sampled_from([b"\x01", b"\x00",
                                                                                             b"\x7f", b"\t"]),
       st.integers(0, 3))
@example(8193, [], b"\x01", 0)
@example(8192, list(range(0, 8192, 3)), b"\x01", 0)
@example(9000, list(range(0, 9000, 4)), b"\x01", 0)  # (the start leaves the answer to the end)
def test_few_odd_as_defined(size, at, byte, odd):
    """The odd bytes of a sample over 8 KiB counted only as far as they decide: the same answer as all counted."""
    data = bytearray(b"a" * size)
    for position in at:
        if position < size:
            data[position] = byte[0]
    assert shape._few_odd(bytes(data), odd) == _odd_as_defined(bytes(data), odd)


def test_few_odd_stops_once_decided():
    """A sample of 16 KiB (T1's) with no odd byte has only its start counted."""
    class Counted(bytes):
        def __getitem__(self, key):  # type: ignore[override]
            if isinstance(key, slice) and key.start is None:
                assert key.stop < len(self), "all of it counted"
            return bytes.__getitem__(self, key)

    sample = Counted(b"text\n" * 3276 + b"tex\n")
    assert len(sample) == 16384 and shape._few_odd(sample, 0) is True


def _first_as_written() -> re.Pattern[bytes]:
    """``shape_diagnostics._FIRST_RE`` before its place's forms were joined (``git show 6b1440b6``)."""
    code = shape_diagnostics._CODE
    return re.compile(rb" {0,16}(?:Compiling|Checking|Building|error|warning)\b|[A-Z]{1,4}\d{2,4} |"
                      rb"::(?:error|warning|notice)[ :]|"
                      rb"In file included from |"
                      rb"[^\s:][^:\r\n]{0,200}:(?:\d+:){1,2} (?:fatal error|error|warning|note)" + code + rb": |"
                      rb"[^\s:][^:\r\n]{0,200}:\d+:\d+: [A-Z]{1,4}\d{2,4}:? |"
                      rb"[^\s:][^:\r\n]{0,200}: (?:In (?:function|member function|constructor|destructor|"
                      rb"instantiation)|At top level:)")


_FIRST_PIECES = st.sampled_from([b"src/a.c", b":", b"12", b"3", b" ", b"error", b"warning", b"note", b"fatal error",
                                 b"[E0308]", b"E501", b"F401", b"In function 'f'", b"At top level:", b"\n", b"\r",
                                 b"x" * 150, b"Compiling", b"::error", b"In file included from ", b"a b"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_FIRST_PIECES, max_size=20).map(b"".join))
@example(b"src/a.c:12:3: error: x")
@example(b"src/a.py:1:2: E501 line too long")
@example(b"src/a.c: In function 'f':")
@example(b"a" * 201 + b":1: error: x")
def test_diagnostics_first_line_as_written(sample):
    """The first line's forms with their place read once match where the three places did."""
    old = _first_as_written()
    assert (shape_diagnostics._FIRST_RE.match(sample, 0, shape_diagnostics._FIRST_BYTES) is None) == \
        (old.match(sample, 0, shape_diagnostics._FIRST_BYTES) is None)


def _json_after_first_line_ungated(text: str) -> bool:
    """``shape._json_after_first_line`` before its bracket gate (``git show 6b1440b6``)."""
    pos = 0
    for _ in range(shape.MOST_LEADING):
        end = text.find("\n", pos, shape.JSONL_HEAD_CHARS)
        if end < 0:
            return False
        head = text[end + 1 : end + 257]
        line = head.lstrip(shape._BLANKS)
        if line[:1] in ("{", "["):
            return True
        pos = end + 1 + len(head) - len(line)
    return False


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["\n", " ", "\ufeff", "\t", "{", "[", "a", "x" * 300, " " * 250, "\r\n", "]"]),
                max_size=30).map("".join))
@example("a\n" + " " * 255 + "{")
@example("a\n" + " " * 256 + "{")
@example("x" * 65535 + "\n" + " " * 255 + "[")  # (the last character the lines after the first are read to)
def test_json_after_first_line_bracket_gate(text):
    """The bracket gate of ``_json_after_first_line`` never changes its answer."""
    assert shape._json_after_first_line(text) == _json_after_first_line_ungated(text)


def test_json_after_first_line_gate_taken():
    """A text with no bracket is answered without a line read."""
    class Unread(str):
        def find(self, sub, *bounds):  # type: ignore[override]
            assert sub != "\n", "lines read"
            return super().find(sub, *bounds)

    assert shape._json_after_first_line(Unread("warning: x\nplain text\n" * 20)) is False
