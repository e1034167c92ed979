"""Cheaper gates of shape detection (issue 16's T1, the describecost helpers: describe of a small spill made cheaper
with every answer the same), each against the code it stands for -- a copy of the code before it -- on generated
inputs that reach the gate's edge, and shown taken. One section a helper, named for its branch."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import (
    shape,
    shape_diagnostics,
    shape_log,
    shape_markdown,
    shape_pipes,
    shape_terminal,
    shape_testrun,
)
from scratchfs.api.shape_diagnostics import diagnostics_shape
from scratchfs.engine.structure import table_start
from scratchfs.foundation import text as text_module
from scratchfs.foundation.text import line_stats

# --- dckinds: the kinds told by lines (shape_kinds' detectors) and the logs -------------------------------------------


def old_after_commands(sample: bytes) -> bool:
    """``shape_diagnostics._after_commands`` before its gate (``git show 3dc382ed:scratchfs/api/shape_diagnostics.py``):
    a match of ``_COMMAND_RE`` at each of the first lines' starts."""
    d = shape_diagnostics
    commanded = d._COMMAND_RE.match(sample) is not None
    at = sample.find(b"\n", 0, d._PREAMBLE_BYTES)
    for _ in range(d._PREAMBLE_LINES):
        if at < 0:
            return False
        if commanded and d._LATER_RE.match(sample, at, at + d._FIRST_BYTES):
            return True
        commanded = commanded or d._COMMAND_RE.match(sample, at + 1, d._PREAMBLE_BYTES) is not None
        at = sample.find(b"\n", at + 1, d._PREAMBLE_BYTES)
    return False


def _command_lines(sample: bytes) -> list[int]:
    """The first 8 lines of ``sample`` (newlines within 8 KiB) that ``_COMMAND_RE`` matches at the start of."""
    d = shape_diagnostics
    starts, at = [0], sample.find(b"\n", 0, d._PREAMBLE_BYTES)
    while at >= 0 and len(starts) < d._PREAMBLE_LINES:
        starts.append(at + 1)
        at = sample.find(b"\n", at + 1, d._PREAMBLE_BYTES)
    return [n for n, start in enumerate(starts) if d._COMMAND_RE.match(sample, start, d._PREAMBLE_BYTES)]


_WORDS = st.sampled_from([b"gcc", b"g++", b"cc", b"c++", b"clang", b"clang++", b"cpp", b"ld", b"ar", b"as", b"nvcc",
                          b"icc", b"icpx", b"mpicc", b"xgcc", b"clan", b"lang", b"ing", b"has", b"pp", b"c", b"+",
                          b"-", b"/", b"/usr/bin/", b"x86_64-linux-gnu-", b"./", b"-12", b"-1", b"-123", b"-1234",
                          b"2024-01-01", b"make", b"make[1]: ", b"make: ", b"[", b"[ 50%] ", b"[100%] ", b"%] ", b" ",
                          b"  ", b"\t", b"\r", b":", b"12", b"x", b"-Wall", b"m.c", b"\n"])
_DIAGNOSTICS = st.sampled_from([b"\nm.c:3:5: error: x", b"\nm.c:3:5: warning: y", b"\nIn file included from a.h:1,",
                                b"\nm.c: In function 'main':", b"\nm.c:3: error: z", b"\n"])
_LINE = st.lists(_WORDS, max_size=8).map(b"".join)


@settings(max_examples=3000, deadline=None)
@example(b"as soon\nas x")  # (prose: a line that starts "as " is one that _COMMAND_RE matches)
@example(b"x\n" * 7 + b"/usr/bin/x86_64-linux-gnu-gcc-12 -c m.c\nm.c:3:5: error: x\n")  # (the 8th line)
@example(b"x\n" * 8 + b"gcc -c m.c\nm.c:3:5: error: x\n")  # (the 9th: no command looked at)
@given(st.lists(st.one_of(_LINE, _DIAGNOSTICS), max_size=14).map(b"\n".join))
def test_dckinds_command_lines_gate_is_necessary(sample):
    """Lines made of compilers' names, their paths, prefixes and versions, make's and CMake's marks, near misses
    (``xgcc``, ``clan``, ``-1234``, a date) and diagnostics: whenever ``_COMMAND_RE`` matches one of the first 8
    lines' starts, the gate (``_COMMAND_LINE_RE``, one match) matches too, and ``_after_commands`` answers as it did
    without the gate."""
    if _command_lines(sample):
        assert shape_diagnostics._COMMAND_LINE_RE.match(sample, 0, shape_diagnostics._PREAMBLE_BYTES)
    assert shape_diagnostics._after_commands(sample) == old_after_commands(sample)


def test_dckinds_grep_output_stops_at_the_gate(monkeypatch):
    """Grep output (``path:12:def f():``, no line a compiler's command) is no build: told so by the gate alone, no
    match of ``_COMMAND_RE`` at a line's start; a build's output still passes it to them and is told."""
    grep = b"".join(b"./lib/m%d.py:%d:def f%d(x):\n" % (n, n, n) for n in range(40))
    build = b"mkdir -p build\n/usr/bin/gcc-12 -Wall -c m.c\nm.c:3:5: error: 'y' undeclared\n"
    calls = []
    real = shape_diagnostics._COMMAND_RE

    class Counted:
        def match(self, *args):
            calls.append(args[1:])
            return real.match(*args)

    monkeypatch.setattr(shape_diagnostics, "_COMMAND_RE", Counted())
    assert diagnostics_shape(grep, 40, True, "") is None
    assert calls == []
    assert diagnostics_shape(build, 3, True, "") == ("diagnostics, 3 lines: 1 error, 0 warnings, 0 notes: error: 'y' "
                                                     "undeclared at m.c:3:5 (line 3); line=N reads from one")
    assert len(calls) == 2


@settings(max_examples=1000, deadline=None)
@example([8191, 100, 200], 8300)  # (the 4th newline the last byte looked at: fewer than 4 ...)
@example([8191, 100, 200, 300], 8300)  # (... or not)
@example([8192, 100, 200, 300], 8300)  # (one past the end looked at: not counted)
@given(st.lists(st.integers(0, 8300), max_size=6), st.integers(8192, 8400))
def test_dckinds_minified_gate_counts_as_the_count_did(newlines, size):
    """Samples of 8 KiB or more with 0 to 6 newlines placed anywhere, about the 8 KiB looked at's end too: the
    ``memchr``-stopped look (``_fewer_newlines``) says what ``count(b"\\n", 0, 8192) <= 3`` said, and the shape is
    the same as before."""
    from scratchfs.api import shape_encoded

    unit = b"var a=function(b){return b+1},c="
    sample = bytearray(unit * (size // len(unit) + 1))[:size]
    for at in newlines:
        sample[min(at, size - 1)] = 10
    sample = bytes(sample)
    assert shape_encoded._fewer_newlines(sample, 8192, 4) == (sample.count(b"\n", 0, 8192) <= 3)
    old = shape_encoded._minified(sample, 9, True, "") if sample.count(b"\n", 0, 8192) <= 3 else None
    assert shape_encoded.encoded_shape(sample, 9, True, "") == old


def old_log_lines(head: bytes) -> int:
    """``shape_log.log_lines`` before (3dc382ed): ``in`` for ``[pod/``, the patterns' indentation a captured group."""
    prefixed = (b"|" in head and b" | " in head) or (b"[" in head and b"[pod/" in head)
    return len((shape_log.LOG_LINE_RE if prefixed else shape_log.PLAIN_LOG_LINE_RE).findall(head))


def old_java_trace_lines(head: bytes) -> int:
    """``shape_log.java_trace_lines`` before (3dc382ed): no look for a tab first."""
    if b"\n\tat " not in head:
        return 0
    return head.count(b"\n\tat ") + head.count(b"\n\t... ") + head.count(b"\nCaused by: ")


_LOG_PIECES = st.sampled_from([
    b"\n", b" ", b"  ", b"\t", b"2026-12-05 00:34:34,123 ", b"[2026-12-05T00:34", b"00:34:34", b"Dec  5 00:34",
    b"Dec 06, 2026 3:11:09 PM ", b"ERROR", b"WARN ", b"INFO", b"INFOx", b"E1205 05:33:56.724479 ",
    b'time="2026-12-05T05:34', b"level=info ", b"lvl=x ", b"web-1  | ", b"web-1 |", b" | ", b"|", b"[pod/api-7/c] ",
    b"[pod/", b"[po", b"[", b"\tat com.x.Y.m(Y.java:1)", b"\t... 3 more", b"Caused by: ", b"at ", b"x", b"12"])


@settings(max_examples=2000, deadline=None)
@example(b"\n  [pod/a/b] 2026-12-05 00:34 x\n  ERROR y\n\tat a.B.c(")
@example(b"\nweb-1  | INFO x\n\t\tat y\n\tat z")
@given(st.lists(_LOG_PIECES, max_size=60).map(lambda pieces: b"\n" + b"".join(pieces)))
def test_dckinds_log_lines_and_java_lines_count_as_before(head):
    """Heads of log lines (timestamps, levels, klog's and logfmt's starts), indented or not, behind docker compose's
    and kubectl's prefixes or near misses of them (`` |`` alone, ``[pod/`` cut), Java frames and tabs elsewhere:
    :func:`log_lines` and :func:`java_trace_lines` count what they counted."""
    assert shape_log.log_lines(head) == old_log_lines(head)
    assert shape_log.java_trace_lines(head) == old_java_trace_lines(head)


def old_v8_gate(sample: bytes) -> bool:
    """``shape_log._v8_traces``' gate before (3dc382ed): ``bytes.find`` of a frame's start in the last 4 KiB."""
    return sample.find(b"\n    at ", max(0, len(sample) - 4096)) >= 0


@settings(max_examples=1000, deadline=None)
@example(4000, 4090, 96)  # (a frame's start on the 4 KiB tail's first byte ...)
@example(4000, 4089, 96)  # (... and one byte before it)
@given(st.integers(0, 6000), st.integers(0, 6000), st.integers(0, 120))
def test_dckinds_v8_gate_finds_what_find_found(before, at, after):
    """An error's line and a V8 frame (``    at f (/a.js:2:3)``) placed anywhere in a text of up to 12 KiB, about the
    edge of the 4 KiB tail looked at: the gate answers as ``bytes.find`` did, and the traces said are the same as
    the old gate's (none when it found none)."""
    filler = b"xyz  at \n" * 700
    sample = filler[:at] + b"\nError: bad\n    at f (/a.js:2:3)\n" + filler[:after] + b"w" * before
    frame = sample[-4096:] if len(sample) > 4096 else sample
    assert (shape_log._V8_HINT_RE.search(sample, max(0, len(sample) - 4096)) is not None) == old_v8_gate(sample)
    told = shape_log._v8_traces(sample)
    assert (told[0] != "") == (b"\n    at f" in frame)


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


# --- dctables: the table detectors (_delimited, shape_table, table_start, aligned, pipes, settings, columns) ---

_DCT_PIECES = st.sampled_from(["a", "b", "7", " ", ",", ";", "\t", "\n", "\r", "\r\n", "x,y", "1;2", "p\tq", '"'])


def test_dctables_a_delimiter_found_unsteady_is_not_tried_again(monkeypatch):
    """``detect_delimiter``: the header line's delimiter, not steady in the lines after it, is not counted over
    them a second time among the others tried (prose after a line with a comma: each count is 20 lines' work)."""
    tried = []
    steady = table_start._steady
    monkeypatch.setattr(table_start, "_steady", lambda d, line, lines: tried.append(d) or steady(d, line, lines))
    after = "the next line, with two, commas\n" * 8
    assert table_start.detect_delimiter("a line, with one comma; and a semicolon", after) == ","
    assert tried == [",", "\t", ";"]  # (a line of two kinds of delimiter: of one kind, none is tried, shapecost3)


@settings(max_examples=400)
@given(st.lists(_DCT_PIECES, max_size=12).map("".join).filter(lambda s: "\n" not in s and "\r" not in s),
       st.lists(_DCT_PIECES, max_size=40).map("".join), st.sampled_from(table_start.DELIMITERS))
def test_dctables_steady_counts_as_the_plain_loop(line, after, delimiter):
    """``_steady``'s counts at C speed against the loop over the lines it stands for."""
    lines = [piece for piece in re.split(r"\r\n|\r|\n", after)[:20] if piece]
    count = line.count(delimiter)
    plain = count > 0 and 5 * sum(piece.count(delimiter) == count for piece in lines) >= 4 * len(lines)
    assert table_start._steady(delimiter, line, lines) == plain


def _old_first_lines(text: str, head_chars: int, count: int) -> list[str] | None:
    """``aligned_shape``'s first test and first lines as they were: a search a newline, then a search a line."""
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1, head_chars)
        if end < 0:
            break
    if text.find("  ", 0, end if end >= 0 else head_chars) < 0:
        return None
    firsts, at = [], 0
    for _ in range(count):
        end = text.find("\n", at, at + head_chars)
        firsts.append(text[at : end if end >= 0 else at + head_chars])
        if end < 0:
            break
        at = end + 1
    return firsts


@settings(max_examples=600)
@given(st.lists(st.sampled_from(["a", "  ", " ", "\n", "\r", "b c", "x  y", "\n\n"]), max_size=40).map("".join),
       st.integers(4, 24), st.integers(1, 30))
def test_dctables_aligned_first_lines_as_the_searches(monkeypatch, text, head_chars, quick):
    """The aligned test's first lines, from one split of the text's start when its newlines end them all, against a
    search a line -- the head and that start cut short so that lines cross their ends, a run of 2 spaces on either
    side of them."""
    from scratchfs.api import shape_aligned
    from scratchfs.engine.structure.aligned import MAX_PREAMBLE

    monkeypatch.setattr(shape_aligned, "HEAD_CHARS", head_chars)
    monkeypatch.setattr(shape_aligned, "_QUICK_CHARS", quick)
    assert shape_aligned._first_lines(text) == _old_first_lines(text, head_chars, MAX_PREAMBLE + 1)


def _old_column_patterns(cells: list[str]) -> set[str] | None:
    """``column_patterns`` as it was: every cell's pattern (two substitutions), then their count."""
    found = {table_start.cell_pattern(cell) for cell in cells}
    signless = {pattern[1:] if pattern[:2] in ("+9", "-9") else pattern for pattern in found}
    return signless if len(signless) <= 3 else None


def _old_header_votes(rows: list[list[str]]) -> tuple[int, bool]:
    """``header_votes`` as it was: each column's cells gathered, and each tested, one call a cell."""
    ts, missing = table_start, {"", "-", "na", "n/a", "nan", "null", "none", "nil", "?"}
    body = rows[1:21]
    votes, named = 0, False
    for column in ts.vote_columns(len(rows[0])):
        cell = rows[0][column]
        cells = [row[column] for row in body if column < len(row) and row[column].strip().lower() not in missing]
        if not cells or cell.strip().lower() in missing or (cell[:1] == " " and 2 * sum(
                piece[:1] == " " for piece in cells) < len(cells)):
            continue
        digits = re.search(r"\d", cell) is not None
        if all(map(ts.is_number, cells)):
            votes += 1 if ts.is_number(cell) else -1
            named = named or not digits
            continue
        patterns = _old_column_patterns(cells)
        signless = ts._signless(cell)
        if patterns is not None and all("9" in pattern for pattern in patterns):
            votes += 1 if signless in patterns else 0 if digits else -1
            named = named or not digits
            continue
        if patterns is not None and len(cells) >= 4 and not any(re.fullmatch(r"a(?:[ _-]a)*", p) for p in patterns):
            named = named or (not digits and signless not in patterns)
        if not digits and len(cells) >= 4 and len(set(map(len, cells))) == 1 and not any(
                re.search(r"\d", piece) for piece in cells):
            if len(set(cells)) > 1:
                votes += 1 if len(cell) == len(cells[0]) else -1
            elif cell == cells[0]:
                votes += 1
    return votes, named


_CELL_PIECES = st.sampled_from(["a", "Bc", "7", "42", "+", "-", "+3", "-1.5", " ", ".", "/", "_", "é", "٣", "\x00",
                                "\t", "NA", "null", "x y", "2026-10", "1.0.0b1"])
_CELLS = st.lists(_CELL_PIECES, max_size=4).map("".join)


@settings(max_examples=800)
@given(st.lists(_CELLS, max_size=24), st.sampled_from([0, 3, 10]))
def test_dctables_column_patterns_as_each_cells_pattern(monkeypatch, cells, long_cells):
    """``column_patterns``: its test of the characters that are no letter or digit (free text: more than 3 sets of
    them; made of cells of any length) and its runs made by a translation, against each cell's pattern -- signs
    before a number, blanks around a cell, non-ASCII digits and NULs among them."""
    monkeypatch.setattr(table_start, "_LONG_CELLS", long_cells)
    assert table_start.column_patterns(cells) == _old_column_patterns(cells)


@settings(max_examples=800)
@given(st.text(st.sampled_from("aZ09 .-+\x00\t"), max_size=40))
def test_dctables_ascii_patterns_as_the_two_substitutions(text):
    assert table_start._ascii_patterns(text) == re.sub(r"[A-Za-z]+", "a", re.sub(r"[0-9]+", "9", text))


_ROWS = st.integers(1, 5).flatmap(lambda width: st.tuples(
    st.lists(_CELLS, min_size=width, max_size=width),
    st.lists(st.lists(_CELLS, min_size=width, max_size=width), max_size=22),
    st.lists(st.tuples(st.integers(0, 21), st.integers(-1, 1)), max_size=2))).map(
        lambda told: [told[0], *[row[: len(row) + grow] if grow < 0 else row + ["7"] * grow if at == n else row
                                 for n, row in enumerate(told[1]) for at, grow in [*told[2], (-1, 0)][:1]]])


@settings(max_examples=800)
@given(_ROWS)
def test_dctables_header_votes_as_the_cell_by_cell_vote(rows):
    """``header_votes``: a column's cells taken by one transpose when every row is as wide as the first (rows of
    one width, and one row a cell wider or narrower, generated), missing values left out at C speed, numbers told
    without a call a cell -- the votes and the name as the loop over cells gave them."""
    assert table_start.header_votes(rows) == _old_header_votes(rows)


def _old_plain_rows(lines: list[str], delimiter: str):
    """``table_rows`` of lines without quotes as it was: each line's count, test and split a step of a loop."""
    from scratchfs.api import shape_rows

    text = "\n".join(lines)
    starts = [at for at, line in enumerate(lines) if line]
    present = [lines[at] for at in starts]
    if len(present) > 2 and any(line.count(delimiter) != present[0].count(delimiter) for line in present[1:-1]) \
            and not (5 * sum(delimiter in line for line in present[1:]) >= 4 * (len(present) - 1) and
                     shape_rows._may_be_ragged(text, delimiter, present[0].split(delimiter), len(present))):
        return None
    rows = [line.split(delimiter) for line in present]
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    if any(len(row) != len(rows[0]) for row in rows[1:-1]) and not shape_rows._ragged_table(rows):
        return None
    return rows, starts


@settings(max_examples=800)
@given(st.lists(st.lists(st.sampled_from(["a", "7", "x y", ",", ";", "\t", "|", ", ", " "]), max_size=5).map(
    "".join), max_size=14), st.sampled_from([",", ";", "\t", "|"]))
def test_dctables_plain_table_rows_as_the_loop(lines, delimiter):
    """``table_rows`` of lines with no quote, CR or NUL (split, not parsed): its counts, cells and starts taken at C
    speed against the loop over lines -- ragged rows, empty lines, lines of the delimiter alone generated."""
    from scratchfs.api.shape_rows import table_rows

    found = table_rows(lines, delimiter)
    assert (None if found is None else (found.rows, found.starts)) == _old_plain_rows(lines, delimiter)


class _Unsure(str):
    """Text that does not say it is ASCII: a detector's ASCII gate passes it on to the test the gate stands for."""

    def isascii(self) -> bool:
        return False


@settings(max_examples=500)
@given(st.lists(st.sampled_from(["a b", "x", "\n", "  ", "|", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
                                 "+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n"]), max_size=14).map("".join),
       st.integers(8, 90), st.booleans())
def test_dctables_pipes_gate_as_the_first_lines_test(monkeypatch, text, head_chars, complete):
    """``pipes_shape``: ASCII text with no pipe in its head is no table drawn with pipes -- the same answer as the
    test of its first lines, with the head cut short so that pipes fall on either side of its end."""
    from scratchfs.api import shape_pipes

    monkeypatch.setattr(shape_pipes, "HEAD_CHARS", head_chars)
    lines = text.count("\n") + 1
    assert shape_pipes.pipes_shape(text, complete, lines) == shape_pipes.pipes_shape(_Unsure(text), complete, lines)


class _EveryLine:
    """A first count of settings' lines that never stops the test (the test the gate stands for)."""

    @staticmethod
    def findall(head: bytes) -> list[bytes]:
        return [b"\n"] * 64


@settings(max_examples=600)
@given(st.lists(st.sampled_from([b"key = value", b"  indented: x", b"./a.py:12:def f():", b"<td>1</td>", b"# note",
                                 b"Model name:\tx", b"\tx = 1", b"_k=v", b"", b"{", b"a.b.c: 4", b"Name:  y",
                                 b"plain words", b" - item"]),
                min_size=0, max_size=14).map(lambda lines: b"\n" + b"\n".join(lines) + b"\n"))
def test_dctables_settings_gate_as_the_count_of_lines(monkeypatch, head):
    """``_reads_as_settings``: fewer than 8 lines starting as a setting's can (a blank, a letter or ``_`` after the
    newline) stop it before its count of lines that may be settings -- the same answer as that count, on heads of
    around 8 such lines among grep output, tags and comments."""
    from scratchfs.api import shape_settings

    gated = shape_settings._reads_as_settings(head)
    monkeypatch.setattr(shape_settings, "_MAYBE_START_RE", _EveryLine)
    assert gated == shape_settings._reads_as_settings(head)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["#", "# c\n", "a,b\n", "\n", " ", "\r\n", "1,2\n", "#x,y\n"]), max_size=12).map(
    "".join))
def test_dctables_comment_cut_gate_as_leading_comments(text):
    """``comment_cut``: text not starting with ``#`` starts with no comment line -- the same answer as
    ``leading_comments`` of its head."""
    from scratchfs.api.shape_table import HEAD_CHARS, comment_cut

    assert comment_cut(text) == table_start.leading_comments(text[:HEAD_CHARS])


def _old_data_votes(rows: list[list[str]]) -> int:
    """``data_votes`` as it was: a column's cells' patterns one at a time, stopped at the first that says no."""
    body = rows[1:21]
    if len(body) < 4:
        return 0
    votes = 0
    for column in table_start.vote_columns(len(rows[0])):
        patterns: set[str] = set()
        for row in body:
            if column >= len(row):
                continue
            pattern = table_start.cell_pattern(row[column])
            patterns.add(pattern)
            if "9" not in pattern or len(patterns) > 3:
                break
        else:
            votes += 1 if table_start.cell_pattern(rows[0][column]) in patterns else -1
    return votes


_TYPED_PIECES = st.sampled_from(["7", "42", "1.0", "2026-10", "4.0K", "a", " ", "x9", "+3", "٣", "\x00", "-", ":"])
_TYPED_ROWS = st.integers(1, 4).flatmap(lambda width: st.lists(st.lists(
    st.lists(_TYPED_PIECES, min_size=1, max_size=3).map("".join), min_size=width - 1, max_size=width + 1),
    min_size=1, max_size=24).map(lambda rows: [[*row, *["9"] * (width - len(row))] if at == 0 else row
                                               for at, row in enumerate(rows)]))


@settings(max_examples=800)
@given(_TYPED_ROWS)
def test_dctables_data_votes_as_the_cell_by_cell_vote(rows):
    """``data_votes``: a column's patterns made at once (ASCII cells with no NUL) against one at a time -- columns
    of numbers, sizes, dates, versions and words, rows narrower than the first, non-ASCII digits and NULs."""
    assert table_start.data_votes(rows) == _old_data_votes(rows)


# --- describecost_large: T2's 512 KiB samples (the files of grep output over the whole sample) ---------------------

_OLD_GREP_FILES_RE = re.compile(rb"\n(?=([^:\n]{1,400}))\1(?<![ \t]\d)(?<![ \t]\d\d):\d+[:-][^\n]*(?:\n\1:[^\n]*)*")
"""``foundation.text._GREP_FILES_RE`` before its path's bytes became a bitmap (``git show
81174302:scratchfs/foundation/text.py``; its possessive ``+`` left out, which changes no match)."""
_GREP_PIECES = st.sampled_from([b"src/a.py", b"./b/c.rs", b"x", b"a b", b" ", b"\t", b"1", b"12", b"123", b":", b"-",
                                b":12:", b":3-", b":4:", b"::", b"-5", b"2026-12-06 10", b"\r", b"\xff", b"\x00",
                                b";", b"9", b"\x0b", b"y" * 398, b"z" * 399, b"w" * 400, b"\n", b"\nsrc/a.py:1:x",
                                b"\n./b/c.rs-2-y"])


@settings(max_examples=3000, deadline=None)
@example(b"\n" + b"p" * 400 + b":1:x")  # (a path of 400 bytes: one ...)
@example(b"\n" + b"p" * 401 + b":1:x")  # (... of 401: none)
@example(b"\n\x00\t\x0b9;\xff:1:x")  # (the ranges' edges: every byte but ":" and "\n" is a path's)
@example(b"\na 1:2:x\nb\t12:3-y\nc 123:4:z")  # (a clock's hour is no path; three digits after a blank may be)
@given(st.lists(_GREP_PIECES, max_size=40).map(lambda pieces: b"\n" + b"".join(pieces)))
def test_describecost_large_grep_files_bitmap_finds_what_the_pattern_found(data):
    """The files pattern with the path's bytes as three ranges (``_PATH_BYTE``): the same matches, in order, as the
    pattern with ``[^:\\n]``, at every start -- over lines of paths, colons, digits, dashes, blanks, clock times, the
    ranges' edge bytes, bytes that are not UTF-8 and runs that reach the path's 400 bytes; and the count
    ``grep_tally`` gives is the old pattern's over the whole sample."""
    for start in range(0, len(data), max(1, len(data) // 7)):
        tallied = [path for path, _ in text_module._GREP_TALLY_RE.findall(data, start)]
        assert tallied == _OLD_GREP_FILES_RE.findall(data, start)
    assert text_module.grep_tally(data[1:], 0)[0] == len(set(_OLD_GREP_FILES_RE.findall(data)))


def test_describecost_large_path_bytes_are_a_bitmap_of_the_same_bytes():
    """``_PATH_BYTE`` holds every byte but ``:`` and ``\\n`` (what ``[^:\\n]`` holds), ``re`` compiles it to one
    bitmap (``CHARSET``: a lookup a byte, where ``[^:\\n]`` is a negated pair of literals), and the files pattern
    scans its paths with it."""
    try:  # (re's compiler: re._compiler from Python 3.11, sre_compile before)
        from re import _compiler as compiler
        from re import _parser as parser
    except ImportError:
        import sre_compile as compiler
        import sre_parse as parser

    held = {b for b in range(256) if re.fullmatch(text_module._PATH_BYTE, bytes([b]))}
    assert held == set(range(256)) - {ord(":"), ord("\n")}
    assert compiler._code(parser.parse(text_module._PATH_BYTE), 0)[5] == compiler.CHARSET
    assert text_module._PATH_BYTE + b"{1,400}" in text_module._GREP_TALLY_RE.pattern
    assert rb"[^:\n]" not in text_module._GREP_TALLY_RE.pattern
    assert text_module.grep_tally(b"src/a.py:1:x\nprose\nsrc/b.py:2-y\n", 0)[0] == 2


# --- describecost_classes: the negated pairs of the other scans of a sample as bitmaps --------------------------------

try:  # (re's compiler: re._compiler from Python 3.11, sre_compile before)
    from re import _compiler as _re_compiler
    from re import _parser as _re_parser
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _re_compiler
    import sre_parse as _re_parser


_BYTE_EDGES = [b"\n", b"\r", b"\r\n", b"\x00", b"\t", b"\x0b", b"\x0c", b"\x0e", b"\x1f", b" ", b"!", b"9", b":", b";",
               b"/", b"(", b")", b"\xff", b"\x80", b"a", b"A", b"0", b"12"]
_CLASS_CASES = {  # (the pattern now, its source before describecost_classes, pieces that reach its branches)
    "diagnostics block": (shape_diagnostics._BLOCK_RE, rb"\n([^\s][^\r\n]{0,300})\r?\n *--> ([^\r\n]{1,300})",
                          [b" --> ", b"\n --> ", b"error[E0308]: x", b"  ", b"x" * 299, b"y" * 300]),
    "diagnostics command": (shape_diagnostics._COMMAND_RE,
                            rb"(?:make(?:\[\d{1,4}\])?: |\[ {0,2}\d{1,3}%\] |(?:[^\s/]{0,200}/){0,16}(?:[\w.-]{1,40}-)?"
                            rb"(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cpp|ld|ar|as|nvcc|icc|icpx|mpicc)(?:-\d{1,3})? )",
                            [b"gcc ", b"/usr/bin/", b"x86_64-linux-gnu-", b"cc-12 ", b"make: ", b"[ 50%] ", b"u" * 199,
                             b"v" * 200, b"\x0bgcc "]),
    "log exception": (shape_log._EXCEPTION_RE, rb"\n(?![ \t])([^\r\n]+)",
                      [b"ValueError: x", b"\n  File \"a.py\"", b"\n\tat"]),
    "log v8 top": (shape_log._V8_TOP_RE, rb"\n([^\s][^\r\n]{0,300})\r?\n    at (?:[^\r\n]{0,300}\()?"
                                         rb"[^\r\n()]{1,400}:\d+:\d+\)?\r?(?=\n|\Z)",
                   [b"\n    at ", b"f (", b"/app/a.js:2:38", b":3:7)", b"Error: boom", b"x" * 300, b"y" * 400]),
    "markdown setting": (shape_markdown._SETTING_RE,
                         rb"\n(?:[A-Za-z_$@][\w.$@/*-]*(?:[ \t]*(?::?=|:(?=[ \t]|\r?\n|\Z))|[ \t]+\"|\()"
                         rb"|\[[^\]\r\n]+\][ \t]*\r?(?=\n|\Z)|\"[^\r\n]*\"[ \t]*\r?(?=\n|\Z)"
                         rb"|[^ \t\r\n][^\r\n]*[;{}][ \t]*\r?(?=\n|\Z))",
                         [b"key = v", b"k: v", b"[section]", b"\"q\"", b";", b"{", b"}", b"]", b"=", b"#", b"set("]),
    "testrun node id": (shape_testrun._NODE_ID_RE, rb"[^\s:]+\.py::[^\s]",
                        [b"tests/test_a.py::test_b", b".py::", b"::", b".py", b"\x0c.py::x"]),
    "grep runs": (text_module._GREP_RUN_RE, text_module.GREP_RUN_PATTERN,
                  [b"src/a.py", b":1:x", b":12-y", b"\nsrc/a.py:2:z", b"a 1", b"p" * 400, b"q" * 401]),
}
_STR_EDGES = ["\n", "\r", "\r\n", "\x00", "\t", "\x0b", "\x0c", "\x0e", " ", "|", "{", "}", "~", "\x7f", "\x80", "\xff",
              "\u0100", "\ud800", "\udfff", "\ufffd", "\uffff", "\U00010000", "\U0010ffff", "a", "|a|b|", "é"]
_STR_CASES = {
    "pipes no pipe": (shape_pipes._NO_PIPE, r"^[^|\n]*$"),
    "terminal first line": (shape_terminal._FIRST_LINE, r"[^\r\n]*(\r\n|\r|\n|$)"),
}


def _same_scan(new: re.Pattern, old: re.Pattern, data) -> None:
    """``new`` and ``old`` find the same matches in ``data`` (spans and groups, in order), and match the same at every
    position (as the shapes use some: ``match`` at a line's start)."""
    assert [(m.span(), m.groups()) for m in new.finditer(data)] == [(m.span(), m.groups()) for m in old.finditer(data)]
    for at in range(len(data) + 1):
        found, before = new.match(data, at), old.match(data, at)
        assert (found and (found.span(), found.groups())) == (before and (before.span(), before.groups()))


@pytest.mark.parametrize("case", sorted(_CLASS_CASES))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_describecost_classes_bitmaps_find_what_the_negated_pairs_found(case, data):
    """Each bytes pattern whose ``[^\\r\\n]``, ``[^:\\n]``, ``[^\\s:]`` or ``[^\\s/]`` became ranges
    (``text.bitmap_classes``): the same matches as its source before, over lines of the class's edge bytes (``\\r``,
    ``\\n``, ``:``, ``/``, the blanks, the ranges' ends, bytes that are not UTF-8) and of the pieces that reach its
    branches and bounds."""
    new, source, pieces = _CLASS_CASES[case]
    old = re.compile(source)
    text = data.draw(st.lists(st.sampled_from(_BYTE_EDGES + pieces), max_size=30).map(b"".join))
    _same_scan(new, old, b"\n" + text)
    _same_scan(new, old, text)


@pytest.mark.parametrize("case", sorted(_STR_CASES))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_describecost_classes_unicode_ranges_find_what_the_negated_pairs_found(case, data):
    """The two ``str`` patterns whose negated pair became ranges to ``U+10FFFF``: the same matches as before over text
    of the pair's characters, the ranges' ends, the BMP's last, lone surrogates and characters past the BMP."""
    new, source = _STR_CASES[case]
    old = re.compile(source, new.flags)
    text = data.draw(st.lists(st.sampled_from(_STR_EDGES) | st.characters(), max_size=30).map("".join))
    _same_scan(new, old, text)


def _sets(pattern: re.Pattern) -> list[list]:
    """The character sets (``IN``) of ``pattern``'s parsed tree, each as its items."""
    found = []

    def walk(items) -> None:
        for op, av in items:
            if op is _re_parser.IN:
                found.append(av)
            for part in av if isinstance(av, (tuple, list)) else [av]:
                if isinstance(part, _re_parser.SubPattern):
                    walk(part)
                elif isinstance(part, (tuple, list)):
                    walk_parts(part)

    def walk_parts(parts) -> None:
        for part in parts:
            if isinstance(part, _re_parser.SubPattern):
                walk(part)

    walk(_re_parser.parse(pattern.pattern, pattern.flags))
    return found


def _negated_pairs(pattern: re.Pattern) -> list[list]:
    """The sets of ``pattern`` that ``re`` checks by a step a member: negated, and no bitmap once optimized."""
    bitmaps = (_re_compiler.CHARSET, _re_compiler.BIGCHARSET)
    return [items for items in _sets(pattern) if items[0][0] is _re_parser.NEGATE
            and not any(op in bitmaps for op, _ in _re_compiler._optimize_charset(items[1:], None)[0])]


def test_describecost_classes_the_line_scans_are_bitmaps():
    """``bitmap_classes``' ranges hold the bytes of the class each stands for and compile to one bitmap
    (``CHARSET``); the scans changed hold none of the negated pairs they held (but ``[^\\s]``, one category: ``\\S``),
    and the ``str`` ones compile their ranges to a bitmap of the BMP (``BIGCHARSET``) over the same characters."""
    for negated, ranges in text_module._BITMAPS.items():
        assert {b for b in range(256) if re.fullmatch(ranges, bytes([b]))} == {
            b for b in range(256) if re.fullmatch(negated, bytes([b]))}
        assert _re_compiler.CHARSET in _re_compiler._code(_re_parser.parse(ranges), 0)
        if sys.version_info >= (3, 11):  # (3.10's compiler makes a negated pair a bitmap itself: nothing to gain)
            assert _re_compiler.CHARSET not in _re_compiler._code(_re_parser.parse(negated), 0)
    for new, source, _pieces in _CLASS_CASES.values():
        assert _negated_pairs(re.compile(source)) and new.pattern == text_module.bitmap_classes(source)
        assert all(items == [(_re_parser.NEGATE, None), (_re_parser.CATEGORY, _re_parser.CATEGORY_SPACE)]
                   for items in _negated_pairs(new)), new.pattern
    for new, source in _STR_CASES.values():
        assert _negated_pairs(re.compile(source)) and not _negated_pairs(new)
        assert _re_compiler.BIGCHARSET in _re_compiler._code(_re_parser.parse(new.pattern, new.flags), new.flags)
        old_set = re.compile(source.split("*")[0].lstrip("^"))
        new_set = re.compile(re.search(r"\[[^]]*\]", new.pattern)[0])
        for code in [*range(0x10000), 0x10000, 0x10FFFF]:
            assert bool(new_set.fullmatch(chr(code))) == bool(old_set.fullmatch(chr(code))), hex(code)
