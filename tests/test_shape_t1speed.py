"""Shortcuts of shape detection (issue 16, T1 "t1speed": a spill's describe made cheaper with the same answers),
each against the code it stands for -- its definition, or a copy of the code before it -- on generated inputs built
around its boundary and on slices of every real output of ``fixtures/``; each also shown taken.

- ``line_stats`` of a sample larger than 32 KiB whose first 4 KiB are not dense is split at once (bounded), with no
  count of all its newlines first: that count cost as much as the split (60 us of 64 KiB).
- ``bare_crs`` of a sample larger than 64 KiB with few ``\\r`` throughout (at most one in 16 bytes: CRLF text of
  lines of 16 bytes or more) searches for a bare one after counting them, not counting the ``\\r\\n`` pairs: the
  search stops at each ``\\r``, the two-byte count costs 2 ns a byte (1.1 ms of 512 KiB).
- ``_delimited`` (the CSV/TSV table test) stops at a text whose first line holds no delimiter and comes first
  (``shape_table.no_delimited_start``), before the table's head, comment lines and delimiter are read: the gate
  against the full test, never rejecting what it accepts, on generated texts and on slices of every fixture at many
  offsets and sizes, as is and with CRLF line ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_table
from scratchfs.api.shape_terminal import bare_crs
from scratchfs.foundation.text import line_stats
from tests.test_shape_fastpaths import TEXTS, full_bare_crs, full_line_stats, lines_of, swapped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = sorted(p for p in [*FIXTURES.iterdir(), *(FIXTURES / "tools").iterdir()] if p.is_file())


class _CountSpy(bytes):
    """Bytes that record each ``count`` asked of them: ``(sub, start, end)``."""

    calls: list[tuple]

    def count(self, sub, *bounds):  # type: ignore[override]
        self.calls.append((sub, *bounds))
        return super().count(sub, *bounds)


def _spied(data: bytes) -> _CountSpy:
    spy = _CountSpy(data)
    spy.calls = []
    return spy


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"", b"a", b"\r", b"x" * 15, b"y" * 16, b"z" * 40, b"w" * 300]), min_size=1,
                max_size=40), st.lists(st.sampled_from([b"", b"a", b"\r", b"bc", b"x" * 15, b"y" * 90]), min_size=1,
                                       max_size=40), st.integers(1, 3000), st.booleans())
@example([b"z" * 40], [b""], 3000, False)  # (a sparse start, then bare newlines: the split finds it dense)
@example([b""], [b"y" * 90], 100, True)  # (a dense start, then long lines)
def test_line_stats_of_large_samples_as_defined(start, rest, times, ended):
    """Samples past the 32 KiB split at once: a start of one kind of lines and a rest of another, so that the first
    4 KiB may tell the sample's density wrong either way; the answer is the definition's whatever path it takes."""
    sample = b"\n".join(start) * max(1, 4200 // (len(b"\n".join(start)) + 1)) + b"\n" + b"\n".join(rest) * times
    sample = sample[: 40_000 + 8 * times] + (b"\n" if ended else b"")
    assert line_stats(sample) == full_line_stats(sample)


def test_line_stats_of_real_outputs_as_defined():
    for path in REAL:
        data = path.read_bytes()
        for start in (0, 1, 777, len(data) // 3):
            for size in (32 * 1024 + 1, 64 * 1024, 512 * 1024):
                piece = data[start : start + size]
                assert line_stats(piece) == full_line_stats(piece), (path.name, start, size)
                crlf = piece.replace(b"\n", b"\r\n")
                assert line_stats(crlf) == full_line_stats(crlf), (path.name, start, size)


def test_a_sparse_large_sample_is_split_without_counting_it_first():
    """64 KiB of 60-byte lines: only the first 4 KiB are counted (the density probe), not the whole sample."""
    sample = _spied((b"x" * 59 + b"\n") * 1100)
    assert line_stats(sample) == full_line_stats(bytes(sample))
    assert all(call[1:] == (0, 4096) for call in sample.calls if call[0] == b"\n"), sample.calls


def test_a_dense_large_sample_is_still_counted_first():
    """40,000 bare newlines: the probe finds the start dense, the whole is counted and never split."""
    sample = _spied(b"\n" * 40_000 + b"tail")
    assert line_stats(sample) == full_line_stats(bytes(sample))
    assert (b"\n",) in sample.calls


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"", b"a", b"\r", b"\r\r", b"x" * 15, b"y" * 40, b"w" * 300]), min_size=1,
                max_size=40), st.sampled_from([b"\r\n", b"\n", b"\r", b"\n\r"]), st.integers(1, 3000),
       st.sampled_from([b"", b"\r", b"a\rb", b"\r" * 5000]), st.integers(0, 10**6))
@example([b"y" * 40], b"\r\n", 2000, b"\r", 10**6)  # (one bare \r at the end of a large CRLF sample)
@example([b"y" * 40], b"\r\n", 2000, b"\r" * 5000, 300)  # (a run of them inside it: not sparse throughout)
def test_bare_crs_of_large_samples_as_defined(lines, end, times, extra, at):
    sample = (end.join(lines) + end) * times
    sample = sample[: 70_000 + 3 * times]
    at %= len(sample) + 1
    sample = sample[:at] + extra + sample[at:]
    assert bare_crs(sample) == full_bare_crs(sample)


def test_bare_crs_of_real_outputs_as_defined():
    for path in REAL:
        data = path.read_bytes()
        for start in (0, 1, 777, len(data) // 3):
            for size in (64 * 1024 + 1, 512 * 1024):
                for piece in (data[start : start + size], data[start : start + size].replace(b"\n", b"\r\n")):
                    assert bare_crs(piece) == full_bare_crs(piece), (path.name, start, size)
                    cut = piece[: len(piece) // 2] + b"\r" + piece[len(piece) // 2 :]
                    assert bare_crs(cut) == full_bare_crs(cut), (path.name, start, size)


def test_large_crlf_text_is_searched_not_counted_in_pairs():
    """512 KiB of CRLF lines of 60 bytes: its carriage returns counted once, no ``\\r\\n`` counted."""
    sample = _spied((b"x" * 58 + b"\r\n") * 9000)
    assert bare_crs(sample) == 0
    assert (b"\r\n",) not in sample.calls, sample.calls
    dense = _spied(b"\r\n" * 40_000 + b"\r")  # (every other byte a \r: counted, never searched)
    assert bare_crs(dense) == 1
    assert (b"\r\n",) in dense.calls


def _ungated():
    return swapped([(shape, "no_delimited_start", lambda text: False)])


def _delimited_both(text: str, whole: str, complete: bool, size: int, lines: int) -> None:
    """The gated and the full table test give the same answer; the gate rejects nothing the full test accepts."""
    gated = shape._delimited(text, lambda: whole, complete, size, lines)
    with _ungated():
        full = shape._delimited(text, lambda: whole, complete, size, lines)
    assert gated == full
    if shape_table.no_delimited_start(text):
        assert full is None


def _texts_of(piece: bytes, size: int) -> tuple[str, str, bool]:
    """``(text, whole, complete)`` as describe hands them to the table test: a sample of a larger content (``size``)
    past 32 KiB is decoded as far as its head's characters."""
    whole = piece.decode("utf-8", "replace")
    complete = len(piece) >= size
    text = whole if complete or len(piece) <= 32784 else piece[:32784].decode("utf-8", "replace")[:-3]
    return text, whole, complete


TABLE_LINES = st.sampled_from(["id,name,score", '1,"a, b",2', "3,x,4", "x\ty\tz", "1\t2\t3", "a;b;c", "1;2,5;3",
                               "sep=;", "sep=,", "# a comment", "#id,name", "\ufeffid,name", "\ufeff", "", "\r",
                               "plain words", "  indented", '{"a": 1, "b": 2}', "[1, 2]", "a|b|c", "x" * 9000])


@settings(max_examples=400, deadline=None)
@given(st.lists(TABLE_LINES, max_size=30), st.sampled_from(["\n", "\r\n", "\r", "\n\n"]), st.booleans())
@example(["x" * 9000, "a,b", "1,2", "3,4"], "\n", True)  # (a first line past the head: not gated)
@example(["sep=;", "a;b", "1;2"], "\n", True)
def test_the_table_gate_against_the_full_test_on_generated_texts(lines, end, complete):
    text = end.join(lines)
    size = len(text.encode()) + (0 if complete else 100)
    _delimited_both(text, text, complete, size, lines_of(text.encode()))


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_describe_with_and_without_the_table_gate(data):
    gated = shape.describe(data, len(data), lines_of(data))
    with _ungated():
        assert shape.describe(data, len(data), lines_of(data)) == gated


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_the_table_gate_on_slices_of_real_outputs(path):
    """Every fixture cut at 23 offsets to 1 byte, 100 bytes, 4, 16 and 64 KiB (whole contents) and 40 KiB samples
    of a content 4 times larger, as is and with CRLF line ends: the gate and the full test agree on each."""
    data = path.read_bytes()
    for start in sorted({*range(0, len(data), max(1, len(data) // 21)), 1, len(data) - 5000}):
        start = max(0, start)
        for crlf in (False, True):
            for length, whole in ((1, True), (100, True), (4096, True), (16384, True), (65536, True), (40_000, False)):
                piece = data[start : start + length]
                piece = piece.replace(b"\n", b"\r\n") if crlf else piece
                size = len(piece) if whole else 4 * len(piece)
                text, full_text, complete = _texts_of(piece, size)
                _delimited_both(text, full_text, complete, size, lines_of(piece))


def test_a_first_line_without_a_delimiter_stops_the_table_test(monkeypatch):
    """Prose's first line: the table test asks for no delimiter (its head and comment lines not read)."""
    asked = []
    monkeypatch.setattr(shape, "detect_delimiter", lambda *args: asked.append(args) or ",")
    text = "The quick brown fox\njumps, over; the\tlazy dog\n" * 20
    assert shape._delimited(text, lambda: text, True, len(text), 40) is None
    assert asked == []
