"""Shortcuts of shape detection (issue 16, T1 "describecost": describe of small payloads made cheaper with the same
answers), each against the code it stands for on generated inputs that reach its edge. One section a branch."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape
from scratchfs.foundation.text import line_stats

# --- dcplain: the plain text's steps (scratchfs.api.shape's _plain, _head_rows; json_part.may_follow_text) ---------

_PIECES = st.lists(st.sampled_from([b"", b"\n", b"\n\n", b"\r", b"\r\n", b"a", b"src/x.py:12:", b"y" * 20, b" "]),
                   max_size=60).map(b"".join)


def _head_rows_as_defined(head: bytes) -> int:
    """``_head_rows`` before its search gate: both counts always."""
    return max(1, head.count(b"\n") + (not head.endswith(b"\n")) - head.count(b"\n\n"))


@settings(max_examples=300, deadline=None)
@given(_PIECES)
@example(b"")
@example(b"\n")
@example(b"a\n\nb")
@example(b"a\nb\n")
def test_dcplain_head_rows_gated_as_defined(sample):
    """The count of newline pairs is skipped when a search finds none: the same rows, blank lines or not."""
    head = b"\n" + sample
    assert shape._head_rows(head) == _head_rows_as_defined(head)
    assert shape._head_rows(sample) == _head_rows_as_defined(sample)


@settings(max_examples=400, deadline=None)
@given(_PIECES, st.sampled_from([None, 0]), st.sampled_from([0, 1, 3]))
@example(b"", None, 0)
@example(b"\na", None, 0)  # (a first row empty: the pair is the head's newline and the sample's)
@example(b"a\n", None, 0)
@example(b"a\r\nb", None, 0)  # (a row of \r only is blank: no shortcut, though no two newlines meet)
@example(b"a\n\r\nb", None, 0)
@example(b"a\nb", None, 1)  # (the head not b"\n" + sample: a byte order mark's, a cut head's)
def test_dcplain_known_rows_as_head_rows(sample, bare, shift):
    """``_known_rows`` (the head's rows told by ``line_stats``' rows and blank rows) equals ``_head_rows`` of the
    head, whether or not the head is the sample's (``shift``: a head taken further on, as after a byte order mark)."""
    bare = bare if bare is None or b"\r" not in sample.replace(b"\r\n", b"") else None  # (0 only when none is bare)
    rows, _longest, empty = line_stats(sample, bare)
    head = b"\n" + sample[shift:]
    assert shape._known_rows(head, sample, rows, empty) == _head_rows_as_defined(head)


def test_dcplain_known_rows_taken():
    """The shortcut is taken (no newline counted) for a head that is the sample's with no blank row."""
    class Uncounted(bytes):
        def count(self, *args):  # type: ignore[override]
            raise AssertionError("counted")

    sample = b"a:1:x\nb:2:y\n"
    head = Uncounted(b"\n" + sample)
    assert shape._known_rows(head, sample, *line_stats(sample)[::2]) == 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"", b"\n", b"{", b"[", b" ", b"\xef\xbb\xbf", b"a" * 50, b"[n", b"\n[1"]),
                max_size=140).map(b"".join))
@example(b"a" + b"x" * 4094 + b"\n[")  # (the bracket the last byte the search sees)
@example(b"a" + b"x" * 4095 + b"\n[")  # (... and one past it)
@example(b"{\n[")
def test_dcplain_may_follow_text_gated_as_defined(head):
    """``may_follow_text``'s bracket gate (a ``{`` or ``[`` after the first byte, within the bytes searched) never
    changes its answer."""
    from scratchfs.api import json_part

    start = head[:16].lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    defined = bool(start) and start not in b"{[" and \
        re.compile(rb"\n[{\[]").search(head, 0, json_part.MAX_TEXT_BYTES + 1) is not None
    assert json_part.may_follow_text(head) == defined


def test_dcplain_gates_taken(monkeypatch):
    """Each gate is taken: no pair counted in a head where none is; no search for a line opening JSON in a head
    with no bracket."""
    from scratchfs.api import json_part

    class PairsUncounted(bytes):
        def count(self, sub, *bounds):  # type: ignore[override]
            assert sub != b"\n\n", "pairs counted"
            return super().count(sub, *bounds)

    assert shape._head_rows(PairsUncounted(b"\na\nb\n")) == 3

    class Unsearched:
        def search(self, *args):
            raise AssertionError("searched")

    monkeypatch.setattr(json_part, "_OPENS_LINE", Unsearched())
    assert json_part.may_follow_text(b"warning: x\nplain text, no JSON here\n" * 20) is False


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab?,: \x00\x1f\u202e\u2028é…\ud800"), max_size=40), st.integers(1, 40),
       st.booleans())
@example("a" * 33, 32, False)
@example("a" * 32, 32, True)
def test_dcplain_key_name_as_defined(key, limit, lacked):
    """``key_name`` of a name with no control character cuts it without ``short_name``'s second scan: the same
    name."""
    from scratchfs.api import shape_words

    text = str(key)
    if shape_words._AMBIGUOUS_RE.search(text) or shape_words._CONTROL_RE.search(text):
        return  # (the quoted path: unchanged)
    assert shape_words.key_name(key, limit, lacked) == shape_words.short_name(text, limit) + ("?" if lacked else "")


def test_dcplain_key_name_scans_once(monkeypatch):
    """A plain name is cut without ``short_name`` (which scans it for controls again)."""
    from scratchfs.api import shape_words

    monkeypatch.setattr(shape_words, "short_name", lambda *args: pytest.fail("scanned again"))
    assert shape_words.key_name("a" * 40, 32) == "a" * 31 + "…"


def _cr_table_as_defined(sample: bytes) -> bool:
    """``shape_terminal._cr_table`` as it was: ``has_header`` asked before the cheaper test of no newline and no
    spaced field outside quotes."""
    import csv
    import io
    from itertools import islice

    from scratchfs.api import shape_terminal as terminal
    from scratchfs.api.shape_table import has_header

    end = min((at for at in (sample.find(b"\r", 0, 4096), sample.find(b"\n", 0, 4096)) if at >= 0), default=-1)
    if end <= 0 or not any(d in sample[:end] for d in (b",", b"\t", b";")):
        return False
    head = sample[: terminal._TABLE_BYTES].decode("utf-8", "replace")
    outside = terminal._QUOTED.sub("", head)
    first = terminal._FIRST_LINE.match(outside, 0, 4096)
    delimiter = max(",\t;", key=first.group().count)
    if first.end(1) == first.start(1) or first.group().count(delimiter) == 0:
        return False
    quoted_only = terminal._BARE_CR_TEXT.search(outside) is None
    if not quoted_only and first.group(1) != "\r":
        return False
    try:
        records = list(islice(csv.reader(io.StringIO(head, newline=""), delimiter=delimiter),
                              terminal.REDRAW_PAIRS + 2))
    except csv.Error:
        return False
    records = [record for record in records[:-1] if record]
    width = len(records[0]) if records else 0
    if len(records) < 3 or sum(len(record) == width for record in records[1:]) < \
            terminal._SAME_WIDTH * (len(records) - 1):
        return False
    if quoted_only or has_header(records):
        return True
    unquoted = [field for line in outside.split("\r", terminal.REDRAW_PAIRS)[: terminal.REDRAW_PAIRS]
                for field in line.split(delimiter)]
    return "\n" not in outside and all(field == field.strip(" ") for field in unquoted)


_CR_CELLS = st.sampled_from([b"name", b"size", b"12", b"3.5", b" a", b"b ", b"", b'"x\ry"', b'"p\nq"', b"NA",
                             b"2026-12-06", b"Processed 10 of 500"])


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 4).flatmap(lambda width: st.lists(st.lists(_CR_CELLS, min_size=width, max_size=width),
                                                         min_size=1, max_size=12)),
       st.lists(st.sampled_from([b"\r", b"\r", b"\n", b"\r\n", b"\r\r"]), min_size=12, max_size=12),
       st.sampled_from([b",", b";", b"\t"]))
@example([[b"name", b"size"], [b"a", b"1"], [b"b", b"2"], [b"c", b"3"]], [b"\r"] * 12, b",")
@example([[b"name", b"size"], [b" a", b"1"], [b"b", b"2"], [b"c", b"3"]], [b"\r"] * 12, b",")
@example([[b"name", b"size"], [b"a", b"1"], [b"b", b"2"], [b"c", b"3"]], [b"\r", b"\n"] * 6, b",")
def test_dcplain_cr_table_as_defined(rows, ends, delimiter):
    """``_cr_table`` asks ``has_header`` only when the cheaper test says no: the same answer (either says yes),
    on tables of lines ended by a lone ``\\r``, ``\\n`` or both, with quoted fields holding either, spaced cells."""
    from scratchfs.api import shape_terminal as terminal

    sample = b"".join(delimiter.join(row) + end for row, end in zip(rows, ends, strict=False))
    assert terminal._cr_table(sample) == _cr_table_as_defined(sample)


def test_dcplain_cr_table_header_unasked(monkeypatch):
    """A table of lines ended by a lone ``\\r`` with no newline and no spaced field outside quotes is told without
    weighing its header."""
    from scratchfs.api import shape_terminal as terminal

    monkeypatch.setattr(terminal, "has_header", lambda rows: pytest.fail("header weighed"))
    assert terminal._cr_table(b"date,bytes,name\r2026-12-06,12,a\r2026-12-07,30,b\r2026-12-08,4,c\r") is True
